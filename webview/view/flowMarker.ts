/**
 * The marker on a message a flow wrote: "review-fix · review · step 3", with Re-run (the step runs again
 * on a new branch with the memory it started from, then the flow goes on).
 */
import type { FlowMarkView } from '../../src/shared/protocol';
import { h } from '../dom';

/** The marker of `mark` on message `nodeId`; `rerun` absent: no button. */
export function flowMarker(mark: FlowMarkView, nodeId: string, rerun: ((nodeId: string) => void) | undefined, busy: () => boolean): HTMLElement {
  const text = `${mark.name} · ${mark.state} · step ${mark.step}${mark.conductor ? ' · conductor' : ''}`;
  return h(
    'span',
    { className: 'flow-marker', testId: 'flow-marker', dataset: { flow: mark.name, state: mark.state, step: String(mark.step) }, title: `Written by step ${mark.step} (state "${mark.state}") of flow "${mark.name}"` },
    h('span', { className: 'codicon codicon-type-hierarchy', attrs: { 'aria-hidden': 'true' } }),
    text,
    rerun
      ? h('button', {
          className: 'flow-rerun codicon codicon-debug-restart',
          testId: 'flow-rerun',
          title: 'Re-run the flow from this step (on a new branch)',
          ariaLabel: 'Re-run the flow from this step',
          onClick: (event) => {
            event.stopPropagation();
            if (!busy()) rerun(nodeId);
          },
        })
      : null,
  );
}
