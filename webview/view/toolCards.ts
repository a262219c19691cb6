/**
 * The cards of an answer's tool calls: the tool (and its server), its state and how long it ran, the
 * arguments and the output collapsed. A call waiting for approval opens its arguments for editing and
 * offers Allow once · Allow in this conversation · Allow in this workspace · Always allow · Deny, with an
 * optional reason the model reads; a call no grant covers (a protected file) offers Allow once · Deny.
 * When a grant covers less than the tool (a read outside the workspace covers one folder), the buttons
 * say what: "Allow reading /tmp/data/ in this conversation".
 */
import type { ToolCallState, ToolCallView, ToolChangePreview, ToolGrantScope } from '../../src/shared/protocol';
import { h, icon, textButton } from '../dom';
import type { MessageActions } from './actions';
import { ALLOWS, allowText } from './allowText';

/** How each state reads and which codicon shows it. */
const STATES: Record<ToolCallState, { label: string; icon: string }> = {
  pendingApproval: { label: 'Waiting for approval', icon: 'shield' },
  running: { label: 'Running', icon: 'loading' },
  done: { label: 'Done', icon: 'check' },
  failed: { label: 'Failed', icon: 'error' },
  denied: { label: 'Denied', icon: 'circle-slash' },
  cancelled: { label: 'Cancelled', icon: 'debug-stop' },
  interrupted: { label: 'Interrupted', icon: 'warning' },
};

/** A duration as a card shows it: `340 ms`, `2.4 s`, `1 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The cards of one answer's calls. */
export function renderToolCalls(calls: readonly ToolCallView[], actions: Pick<MessageActions, 'decideTool'>): HTMLElement {
  return h('div', { className: 'tool-calls', testId: 'tool-calls' }, ...calls.map((call) => renderToolCard(call, actions)));
}

function renderToolCard(call: ToolCallView, actions: Pick<MessageActions, 'decideTool'>): HTMLElement {
  const state = STATES[call.state];
  const header = h(
    'div',
    { className: 'tool-card-header' },
    icon(state.icon === 'loading' ? 'loading codicon-modifier-spin' : state.icon),
    h('span', { className: 'tool-name', testId: 'tool-name', text: call.displayName, title: call.toolName }),
    h('span', { className: 'tool-state', testId: 'tool-state', text: state.label }),
    call.durationMs !== undefined ? h('span', { className: 'tool-duration', testId: 'tool-duration', text: formatDuration(call.durationMs) }) : null,
  );
  const pending = call.state === 'pendingApproval';
  return h(
    'section',
    {
      className: `tool-card state-${call.state}`,
      testId: 'tool-card',
      dataset: { callId: call.callId, state: call.state, tool: call.toolName },
      ariaLabel: `${call.displayName}: ${state.label}`,
    },
    header,
    pending ? approvalBlock(call, actions) : collapsed('Arguments', call.editedArguments ? `${call.editedArguments}\n\n(the model asked for:)\n${call.arguments}` : call.arguments, 'tool-arguments'),
    call.output !== undefined ? collapsed(call.outputCut ? 'Output (cut for this card)' : 'Output', call.output, 'tool-output') : null,
  );
}

/** A collapsed block of text under a summary. */
function collapsed(summary: string, text: string, testId: string): HTMLElement {
  return h('details', { className: testId, testId }, h('summary', { text: summary }), h('pre', { className: 'tool-text', text }));
}

/** The arguments, editable, with the Allow and Deny buttons and the reason for a denial. */
function approvalBlock(call: ToolCallView, actions: Pick<MessageActions, 'decideTool'>): HTMLElement {
  const args = h('textarea', {
    className: 'tool-arguments-editor',
    testId: 'tool-arguments-editor',
    ariaLabel: `Arguments of ${call.displayName} (edit before allowing)`,
    attrs: { rows: String(Math.min(12, call.arguments.split('\n').length + 1)), spellcheck: 'false' },
  });
  args.value = call.arguments;
  const reason = h('input', { className: 'tool-deny-reason', testId: 'tool-deny-reason', ariaLabel: 'Why (optional): the model reads it', attrs: { type: 'text', placeholder: 'Why not (optional, the model reads it)' } });
  let answered = false;
  const answer = (decision: { scope?: ToolGrantScope; deny?: string }) => {
    if (answered) return;
    answered = true;
    const edited = args.value !== call.arguments ? args.value : undefined;
    actions.decideTool(call.callId, { ...decision, ...(edited !== undefined && decision.scope ? { input: edited } : {}) });
  };
  return h(
    'div',
    { className: 'tool-approval', testId: 'tool-approval' },
    call.approval ? h('div', { className: 'tool-approval-reason', testId: 'tool-approval-reason', text: `Arbor asks: ${call.approval.reason}.` }) : null,
    call.approval?.once
      ? h('div', { className: 'tool-approval-once', testId: 'tool-approval-once', text: 'Asked every time: an Allow here covers this call only, never later ones.' })
      : null,
    call.approval?.preview ? changePreview(call.approval.preview) : null,
    args,
    h(
      'div',
      { className: 'tool-approval-buttons' },
      ...(call.approval?.once ? ALLOWS.slice(0, 1) : ALLOWS).map(({ scope }, i) => {
        const text = allowText(scope, call.approval?.covers);
        return textButton(text, `tool-allow-${scope}`, `${text}: ${call.displayName}`, () => answer({ scope }), { secondary: i > 0 });
      }),
    ),
    h('div', { className: 'tool-deny-row' }, reason, textButton('Deny', 'tool-deny', `Deny: ${call.displayName}`, () => answer({ deny: reason.value.trim() }), { secondary: true })),
  );
}

/** The change a file tool would make: its file, counts and unified diff, lines coloured by kind. */
function changePreview(preview: ToolChangePreview): HTMLElement {
  if ('error' in preview) {
    return h('div', { className: 'tool-diff-error', testId: 'tool-diff-error', text: `This call cannot be made as it is: ${preview.error}` });
  }
  const lines = preview.diff.split('\n').map((line) => {
    const kind = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('+') ? 'added' : line.startsWith('-') ? 'removed' : line.startsWith('@@') ? 'hunk' : 'context';
    return h('span', { className: `diff-line diff-${kind}`, text: line || ' ' });
  });
  return h(
    'div',
    { className: 'tool-diff', testId: 'tool-diff' },
    h('div', { className: 'tool-diff-title', text: `${preview.created ? 'Creates' : 'Changes'} ${preview.path}: +${preview.added} −${preview.removed}` }),
    h('pre', { className: 'tool-text tool-diff-text' }, ...lines),
  );
}
