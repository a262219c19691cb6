/**
 * Under an answer of an Ask Several Models run: how many models answered the question, Compare (this
 * answer and another side by side in VS Code's diff editor) and Merge (a model picked from the list
 * fuses the run's answers into a new sibling answer). A merged answer says which answers it merged.
 */
import type { MessageView, SeveralView } from '../../src/shared/protocol';
import { h, icon } from '../dom';
import type { MessageActions } from './actions';
import { togglePopupMenu } from './modelMenu';

/** The bar of `message`, which has `several`. */
export function severalBar(message: MessageView, several: SeveralView, actions: MessageActions): HTMLElement {
  const others = several.answers.filter((a) => a.nodeId !== message.nodeId && a.hasText);
  const position = (nodeId: string) => several.answers.findIndex((a) => a.nodeId === nodeId) + 1;
  const name = (a: SeveralView['answers'][number]) => `${position(a.nodeId)}/${several.answers.length} ${a.model ?? 'unknown model'}${a.merged ? ' (merge)' : ''}`;
  // Merge fuses the answers the models wrote (not earlier merges) that have text.
  const mergeable = several.answers.filter((a) => a.hasText && !a.merged).map((a) => a.nodeId);
  const canCompare = message.content.trim() !== '' && others.length > 0;

  const compare: HTMLButtonElement = h(
    'button',
    {
      className: 'icon-button several-compare',
      testId: 'several-compare',
      title: canCompare ? 'Compare this answer with another in a diff editor' : 'Nothing to compare: no other answer with text',
      attrs: { type: 'button', 'aria-haspopup': others.length > 1 ? 'menu' : 'false' },
      onClick: () => {
        if (!canCompare) return;
        if (others.length === 1) {
          actions.compareAnswers(message.nodeId, others[0].nodeId);
          return;
        }
        togglePopupMenu(
          compare,
          others.map((a) => ({ value: a.nodeId, label: name(a) })),
          { label: 'Compare with', testId: 'several-compare-menu', optionTestId: 'several-compare-option', empty: 'No other answer' },
          (nodeId) => actions.compareAnswers(message.nodeId, nodeId),
        );
      },
    },
    icon('diff'),
    h('span', { className: 'icon-button-text', text: 'Compare' }),
  );
  compare.disabled = !canCompare;

  const merge: HTMLButtonElement = h(
    'button',
    {
      className: 'icon-button several-merge',
      testId: 'several-merge',
      title: mergeable.length >= 2 ? `Merge the ${mergeable.length} answers into one, written by the model you pick` : 'Merge needs at least two answers with text',
      attrs: { type: 'button', 'aria-haspopup': 'menu' },
      onClick: () => {
        if (mergeable.length < 2 || actions.isBusy()) return;
        togglePopupMenu(
          merge,
          actions.models().map((model) => ({ value: model, label: model })),
          { label: 'Merge with model', testId: 'several-merge-menu', optionTestId: 'several-merge-option', empty: 'No models listed by the provider' },
          (model) => actions.mergeAnswers(mergeable, model),
        );
      },
    },
    icon('merge'),
    h('span', { className: 'icon-button-text', text: 'Merge' }),
  );
  merge.disabled = mergeable.length < 2;

  const merged = several.mergedFrom
    ?.map((id) => several.answers.find((a) => a.nodeId === id))
    .filter((a): a is SeveralView['answers'][number] => a !== undefined)
    .map(name);
  const label = merged?.length ? `Merge of ${merged.join(', ')}` : `${several.answers.length} answers from several models`;
  return h(
    'div',
    { className: 'several-bar', testId: 'several-bar', dataset: { answers: String(several.answers.length) } },
    icon('split-horizontal'),
    h('span', { className: 'several-label', testId: 'several-label', text: label }),
    compare,
    merge,
  );
}
