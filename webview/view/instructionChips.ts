/**
 * The instruction chips on a request message: one per instruction file (AGENTS.md, a rule) that applied
 * to its answer's request. Clicking the name opens the file; the eye toggles the file off (or on again)
 * for this chat's next requests. A file edited since the answer, or gone, says so.
 */
import type { InstructionChipView } from '../../src/shared/protocol';
import { h, icon } from '../dom';

/** What the chips ask of the page. */
export interface InstructionChipActions {
  openFile(path: string): void;
  setInstructionExcluded(path: string, excluded: boolean): void;
}

const KIND_LABELS: Record<string, string> = {
  agents: 'AGENTS.md',
  claude: 'CLAUDE.md',
  copilot: 'Copilot instructions',
  copilotInstructions: 'Copilot instructions',
  cursor: 'Cursor rule',
  continue: 'Continue rule',
};

/** The chips of a request message's instruction files. */
export function instructionChips(chips: readonly InstructionChipView[], actions: InstructionChipActions): HTMLElement {
  return h('div', { className: 'chips instruction-chips', testId: 'instruction-chips', attrs: { role: 'list', 'aria-label': 'Instruction files' } }, ...chips.map((c) => instructionChip(c, actions)));
}

function instructionChip(c: InstructionChipView, actions: InstructionChipActions): HTMLElement {
  const kind = KIND_LABELS[c.kind] ?? c.kind;
  const notes = [
    c.sent ? 'sent with this answer' : 'not sent with this answer (excluded)',
    c.status === 'changed' ? 'edited since' : c.status === 'missing' ? 'the file is gone' : '',
    c.excluded ? 'off for the next requests of this chat' : '',
  ].filter(Boolean);
  const open = h(
    'button',
    { className: 'instruction-open', testId: 'instruction-open', title: `Open ${c.path} (${kind}): ${notes.join('; ')}`, ariaLabel: `Open ${c.path}`, attrs: { type: 'button' }, onClick: () => actions.openFile(c.path) },
    icon('book'),
    h('span', { className: 'chip-label', text: c.path }),
    c.status === 'changed' ? h('span', { className: 'chip-note', testId: 'instruction-changed', text: 'edited' }) : null,
    c.status === 'missing' ? h('span', { className: 'chip-note', testId: 'instruction-missing', text: 'gone' }) : null,
  );
  const toggleLabel = c.excluded ? `Send ${c.path} again in this chat` : `Leave ${c.path} out of this chat's requests`;
  const toggle = h(
    'button',
    {
      className: 'icon-button instruction-toggle',
      testId: 'instruction-toggle',
      title: toggleLabel,
      ariaLabel: toggleLabel,
      attrs: { type: 'button', 'aria-pressed': c.excluded ? 'false' : 'true' },
      onClick: () => actions.setInstructionExcluded(c.path, !c.excluded),
    },
    icon(c.excluded ? 'eye-closed' : 'eye'),
  );
  return h(
    'span',
    {
      className: `chip instruction-chip${c.excluded ? ' excluded' : ''}`,
      testId: 'instruction-chip',
      dataset: { path: c.path, kind: c.kind, excluded: c.excluded ? 'true' : 'false', status: c.status },
      attrs: { role: 'listitem' },
    },
    open,
    toggle,
  );
}
