/**
 * What a message made from a prompt template shows: a chip with the template's name and version
 * (saying when the file changed since, with a button that opens the diff), the values the form was
 * filled with, and the rendered text the model got, folded when it is long.
 */
import type { PromptMessageInfo } from '../../src/shared/protocol';
import { h, icon, iconButton } from '../dom';

/** Longer rendered text than this starts folded. */
const FOLD_LINES = 8;
const FOLD_CHARS = 600;

/** The short form of a git blob id, as git shows it. */
export function shortVersion(gitBlobId: string): string {
  return gitBlobId ? gitBlobId.slice(0, 7) : 'unknown version';
}

/** The header chip: `/name` (or the few-shot prompt's name) and its version; a changed file adds a note and a Compare button. */
export function promptChip(info: PromptMessageInfo, openDiff: () => void): HTMLElement {
  const version = shortVersion(info.gitBlobId);
  const label = info.kind === 'user' ? `/${info.name}` : info.name;
  const titles: Record<PromptMessageInfo['status'], string> = {
    current: `Made from ${info.path}, version ${version} (the file is unchanged)`,
    changed: `Made from ${info.path}, version ${version}; the file has changed since`,
    missing: `Made from ${info.path}, version ${version}; the library has no such prompt now`,
    unknown: `Made from ${info.path}, version ${version}`,
  };
  const chip = h(
    'span',
    { className: `prompt-chip prompt-${info.status}`, testId: 'prompt-chip', title: titles[info.status], dataset: { status: info.status, version } },
    icon(info.kind === 'user' ? 'book' : 'comment-discussion'),
    h('span', { className: 'prompt-chip-name', testId: 'prompt-chip-name', text: label }),
    h('span', { className: 'prompt-chip-version', testId: 'prompt-chip-version', text: version }),
  );
  if (info.status === 'changed' || info.status === 'missing') {
    chip.append(h('span', { className: 'chip-note', testId: 'prompt-chip-note', text: info.status === 'changed' ? 'changed since' : 'removed' }));
    chip.append(iconButton('diff', `Compare version ${version} with the file now`, 'prompt-diff', openDiff, 'Compare'));
  }
  return chip;
}

/** Under a `/` prompt message: the form's values and the rendered text (folded when long). */
export function promptDetails(info: PromptMessageInfo): HTMLElement {
  const params = Object.entries(info.params ?? {});
  const list =
    params.length > 0
      ? h(
          'dl',
          { className: 'prompt-values', testId: 'prompt-values' },
          ...params.flatMap(([name, value]) => [
            h('dt', { className: 'prompt-value-name', text: name }),
            h('dd', { className: 'prompt-value', testId: 'prompt-value', dataset: { name }, text: value }),
          ]),
        )
      : null;
  const lines = info.rendered.split('\n').length;
  const long = lines > FOLD_LINES || info.rendered.length > FOLD_CHARS;
  const rendered = h(
    'details',
    { className: 'prompt-rendered', testId: 'prompt-rendered' },
    h('summary', { text: `Sent text (${lines} line${lines === 1 ? '' : 's'})` }),
    h('pre', { className: 'prompt-rendered-text', testId: 'prompt-rendered-text', text: info.rendered }),
  );
  rendered.open = !long;
  return h('div', { className: 'prompt-details', testId: 'prompt-details' }, list, rendered);
}
