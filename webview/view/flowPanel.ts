/**
 * The flow panel above the composer while a flow runs (and for the last run on the path shown): the
 * states as rows with where each may go, the current one highlighted, the step count against `maxSteps`,
 * the memory as a key/value table (long values cut, the full JSON a click away), Stop while it runs,
 * Resume when the path ends inside a run nothing runs now, and the error of a failed run.
 */
import type { FlowPanelView } from '../../src/shared/protocol';
import { h } from '../dom';

/** What the panel's buttons ask of the page. */
export interface FlowPanelActions {
  stop(): void;
  resume(): void;
}

/** How much of a memory value the table shows before "…". */
const VALUE_CHARS = 80;

/** See the file's header. */
export class FlowPanel {
  readonly element = h('section', { className: 'flow-panel', testId: 'flow-panel', ariaLabel: 'Flow' });

  constructor(private readonly actions: FlowPanelActions) {
    this.element.hidden = true;
  }

  /** Shows `panel`, or hides the panel (`null`). */
  update(panel: FlowPanelView | null): void {
    this.element.hidden = panel === null;
    if (!panel) {
      this.element.replaceChildren();
      return;
    }
    this.element.dataset.status = panel.status;
    this.element.dataset.flow = panel.flow;
    const error = panel.error ? [h('div', { className: 'flow-error', testId: 'flow-error', text: panel.error })] : [];
    this.element.replaceChildren(this.header(panel), states(panel), ...error, memoryTable(panel.memory));
  }

  private header(panel: FlowPanelView): HTMLElement {
    const buttons: HTMLElement[] = [];
    if (panel.status === 'running') buttons.push(h('button', { className: 'flow-button', testId: 'flow-stop', text: 'Stop', title: 'Stop the flow (the step running is cut; everything stored stays)', onClick: () => this.actions.stop() }));
    if ((panel.status === 'unfinished' || panel.status === 'stopped') && !panel.missing) {
      buttons.push(h('button', { className: 'flow-button', testId: 'flow-resume', text: 'Resume', title: 'Go on after the last completed step', onClick: () => this.actions.resume() }));
    }
    return h(
      'div',
      { className: 'flow-panel-header' },
      h('span', { className: 'codicon codicon-type-hierarchy', attrs: { 'aria-hidden': 'true' } }),
      h('span', { className: 'flow-panel-name', testId: 'flow-name', text: panel.flow, title: panel.description }),
      h('span', { className: 'flow-panel-status', testId: 'flow-status', text: statusText(panel) }),
      h('span', { className: 'flow-panel-steps', testId: 'flow-steps', text: panel.maxSteps ? `step ${panel.step} / ${panel.maxSteps}` : `step ${panel.step}` }),
      ...buttons,
    );
  }
}

/** "running · fix", "stopped at fix", "failed in fix", "finished", "unfinished · next: fix". */
export function statusText(panel: Pick<FlowPanelView, 'status' | 'state' | 'missing'>): string {
  const at = panel.state ?? '';
  switch (panel.status) {
    case 'running':
      return at ? `running · ${at}` : 'running';
    case 'stopped':
      return `stopped at ${at}`;
    case 'failed':
      return at ? `failed in ${at}` : 'failed';
    case 'finished':
      return 'finished';
    case 'unfinished':
      return panel.missing ? 'unfinished · the flow file is gone' : `unfinished · next: ${at}`;
  }
}

function states(panel: FlowPanelView): HTMLElement {
  const list = h('ol', { className: 'flow-states', testId: 'flow-states' });
  for (const state of panel.states) {
    const current = state.name === panel.state && panel.status !== 'finished';
    const edges = h('span', { className: 'flow-edges' });
    for (const edge of state.edges) {
      edges.append(
        h(
          'span',
          { className: `flow-edge kind-${edge.kind}`, testId: 'flow-edge', dataset: { to: edge.to, kind: edge.kind }, title: edge.kind === 'conductor' ? 'the conductor may pick it' : edge.when ?? 'otherwise' },
          `→ ${edge.to}`,
          edge.when ? h('code', { text: edge.when }) : edge.kind === 'conductor' ? h('em', { text: 'conductor' }) : null,
        ),
      );
    }
    list.append(
      h(
        'li',
        { className: `flow-state${current ? ' current' : ''}`, testId: 'flow-state', dataset: { name: state.name, current: current ? 'true' : undefined } },
        h('span', { className: 'flow-state-name', text: state.name }),
        h('span', { className: 'flow-state-type', text: state.name === panel.start ? `${state.type} · start` : state.type }),
        edges,
      ),
    );
  }
  return list;
}

function memoryTable(memory: Readonly<Record<string, unknown>>): HTMLElement {
  const keys = Object.keys(memory);
  const table = h('table', { className: 'flow-memory-table' });
  for (const key of keys) {
    const full = JSON.stringify(memory[key], null, 2) ?? 'undefined';
    const oneLine = typeof memory[key] === 'string' ? (memory[key] as string).replace(/\s+/g, ' ') : JSON.stringify(memory[key]) ?? '';
    const cut = oneLine.length > VALUE_CHARS ? `${oneLine.slice(0, VALUE_CHARS - 1)}…` : oneLine;
    const value =
      oneLine.length > VALUE_CHARS || full.includes('\n')
        ? h('details', { className: 'flow-memory-full' }, h('summary', { text: cut }), h('pre', { testId: 'flow-memory-json', text: full }))
        : h('span', { text: cut });
    table.append(h('tr', { testId: 'flow-memory-row', dataset: { key } }, h('th', { text: key }), h('td', {}, value)));
  }
  return h('details', { className: 'flow-memory', testId: 'flow-memory', attrs: { open: '' } }, h('summary', { text: `Memory (${keys.length} ${keys.length === 1 ? 'key' : 'keys'})` }), table);
}
