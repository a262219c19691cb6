/**
 * Structured answers in the chat (a `/` prompt with `output:`): the accepted answer as a card (its fields
 * as a table, nested objects as nested tables, lists as numbered lists, Raw JSON folded, Copy JSON), an
 * invalid answer's verdict, and the correction turn that sent its problems back as a compact muted note
 * instead of a user bubble. Every value goes in as text (`h`), never as markup.
 */
import type { ErrorView, MessageView, StructuredView } from '../../src/shared/protocol';
import { h, icon, iconButton } from '../dom';
import { CODE_ACTIONS, decorateCodeBlocks } from '../render/codeBlocks';
import type { MessageActions } from './actions';
import { errorBlock } from './messageParts';

/** Below this depth a value shows as compact JSON in its cell, so a deep answer stays readable. */
const MAX_TABLE_DEPTH = 3;
/** Problems spelled out in a note; the rest are counted (all of them are in its tooltip). */
const LISTED_PROBLEMS = 3;

type Problems = NonNullable<StructuredView['problems']>;

/** The value as the Raw JSON view and Copy JSON give it. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}

/** The card of an accepted structured answer: header with Copy JSON, the fields, and Raw JSON folded. */
export function structuredCard(view: StructuredView): HTMLElement {
  const json = prettyJson(view.value);
  const copy = iconButton('copy', 'Copy JSON: the answer\'s value, pretty-printed', 'structured-copy', () => undefined, 'Copy JSON');
  // The message list's one click listener copies it through the host, as it does a code block's Copy.
  copy.dataset.action = CODE_ACTIONS.copy;
  copy.dataset.code = json;
  const attempt = view.attempt > 1 ? h('span', { className: 'structured-attempt', testId: 'structured-attempt', text: `answer ${view.attempt} of ${view.attempts}` }) : null;
  const header = h('div', { className: 'structured-card-header' }, icon('json'), h('span', { className: 'structured-card-title', text: 'Structured answer' }), attempt, copy);
  const code = h('code', { className: 'language-json', text: json });
  const raw = h('details', { className: 'structured-raw', testId: 'structured-raw' }, h('summary', { className: 'thinking-summary', testId: 'structured-raw-toggle' }, icon('chevron-right'), h('span', { text: 'Raw JSON' })), h('pre', {}, code));
  decorateCodeBlocks(raw);
  // The value is data, not a change to a file: its block copies and inserts, it does not apply.
  raw.querySelector(`[data-action="${CODE_ACTIONS.apply}"]`)?.remove();
  return h('div', { className: 'structured-card', testId: 'structured-card' }, header, valueElement(view.value, 0), raw);
}

/** A value as the card shows it: objects as tables, lists as numbered lists, the rest as text. */
function valueElement(value: unknown, depth: number): HTMLElement {
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', { className: 'structured-empty', text: 'none' });
    if (depth >= MAX_TABLE_DEPTH) return compactJson(value);
    return h('ol', { className: 'structured-list', testId: 'structured-list' }, ...value.map((item) => h('li', {}, valueElement(item, depth + 1))));
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return h('span', { className: 'structured-empty', text: 'empty' });
    if (depth >= MAX_TABLE_DEPTH) return compactJson(value);
    return h(
      'table',
      { className: 'structured-table', testId: 'structured-table' },
      h(
        'tbody',
        {},
        ...entries.map(([key, item]) =>
          h('tr', { testId: 'structured-field', dataset: { field: key } }, h('th', { attrs: { scope: 'row' }, text: key }), h('td', {}, valueElement(item, depth + 1))),
        ),
      ),
    );
  }
  if (typeof value === 'string') return h('span', { className: 'structured-text', testId: 'structured-value', text: value });
  // Numbers, booleans and null read as they are written in JSON.
  return h('code', { className: 'structured-literal', testId: 'structured-value', text: String(value) });
}

function compactJson(value: unknown): HTMLElement {
  return h('code', { className: 'structured-json', testId: 'structured-value', text: JSON.stringify(value) });
}

/** `$.verdict: must be …; $.score: must be number` with the rest counted, and every problem for a tooltip. */
export function problemSummary(problems: Problems): { text: string; all: string } {
  const lines = problems.map((p) => `${p.path}: ${p.message}`);
  const more = lines.length > LISTED_PROBLEMS ? ` (and ${lines.length - LISTED_PROBLEMS} more)` : '';
  return { text: lines.slice(0, LISTED_PROBLEMS).join('; ') + more, all: lines.join('\n') };
}

/**
 * A correction turn: a muted one-line note in the user's place ("The answer did not match the schema: … —
 * asked again"), with the failure and Retry when the next attempt could not be asked for.
 */
export function correctionNote(message: MessageView, view: StructuredView, unanswered: HTMLElement | null): HTMLElement {
  const { text, all } = problemSummary(view.problems ?? []);
  const next = `asked again (answer ${view.attempt + 1} of ${view.attempts})`;
  return h(
    'article',
    {
      className: 'message role-user structured-correction',
      testId: 'message',
      dataset: { nodeId: message.nodeId, role: 'user', structured: 'correction' },
      ariaLabel: 'Arbor: the answer did not match the schema',
    },
    h(
      'div',
      { className: 'correction-note', testId: 'correction-note', title: `Sent to the model:\n${all}` },
      icon('info'),
      h('span', { className: 'correction-note-text', text: `The answer did not match the schema: ${text || 'no details'} — ${next}` }),
    ),
    unanswered,
  );
}

/**
 * Under an answer that failed the schema: the last attempt shows the failure inline (with Retry when it
 * ends the path); an earlier one only says it did not match (the correction note below says how).
 */
export function invalidAnswerNote(view: StructuredView, isLast: boolean, actions: Pick<MessageActions, 'retry' | 'runAction'>): HTMLElement {
  const { text, all } = problemSummary(view.problems ?? []);
  if (view.attempt < view.attempts) {
    return h('div', { className: 'structured-invalid', testId: 'structured-invalid', title: all }, icon('warning'), h('span', { text: `Answer ${view.attempt} of ${view.attempts} did not match the schema.` }));
  }
  const tries = view.attempts === 1 ? 'The answer did not match the schema' : `None of the ${view.attempts} answers matched the schema`;
  const failure: ErrorView = { message: `${tries} (the last one is kept above): ${text || 'no details'}`, kind: 'output', retryable: isLast };
  const block = errorBlock(failure.message, failure.retryable, actions);
  block.dataset.structured = 'failed';
  block.title = all;
  return block;
}
