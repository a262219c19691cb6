/**
 * The banner above the composer while Branch from Here is pending: where the new branch starts,
 * and Cancel to go back to where the reader was. Hidden otherwise.
 */
import type { BranchPoint } from '../../src/shared/protocol';
import { h, icon, textButton } from '../dom';

/** Shows the pending branch point, if any. */
export class BranchBanner {
  readonly element: HTMLElement;
  private readonly text: HTMLElement;
  private shown?: string;

  constructor(cancel: () => void) {
    this.text = h('span', { className: 'branch-banner-text', testId: 'branch-banner-text' });
    const button = textButton('Cancel', 'branch-cancel', 'Cancel the new branch and go back', cancel, { secondary: true });
    this.element = h('div', { className: 'branch-banner', testId: 'branch-banner', attrs: { role: 'status', hidden: '' } }, icon('git-branch'), this.text, button);
  }

  /** Shows `point` (or hides the banner); true when a new branch point appeared, so the page can focus the composer. */
  update(point: BranchPoint | undefined): boolean {
    const key = point ? `${point.nodeId}` : undefined;
    const fresh = key !== undefined && key !== this.shown;
    this.shown = key;
    this.element.hidden = point === undefined;
    if (point) {
      const where = point.preview ? `‹${point.preview}›` : 'this message';
      this.text.textContent = point.replaces ? `New branch from ${where}: your message replaces it` : `New branch from ${where}`;
      this.element.title = point.replaces
        ? 'The next message is sent as a new version of this one; the original and its answers stay in their branch.'
        : 'The next message continues from here in a new branch; the other follow-ups stay in theirs.';
    }
    return fresh;
  }
}
