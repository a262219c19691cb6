import { performance } from 'node:perf_hooks';

/**
 * When activation started and when the Conversations tree first returned its root items, for the
 * activation benchmark (read through the hidden `arbor.debug.activationTiming` command).
 */
export interface ActivationTiming {
  /** `performance.now()` at the start of `activate()`. */
  activateStart: number;
  /** When `activate()` returned. */
  activateEnd?: number;
  /** When VS Code first asked the tree for its root items (the view became visible). */
  firstTreeRequest?: number;
  /** When the tree's `getChildren` first resolved for the root. */
  firstTreeRender?: number;
  /** `firstTreeRender - activateStart`, in ms. */
  toFirstRenderMs?: number;
  /** `activateEnd - activateStart`, in ms. */
  activateMs?: number;
}

/** Records the activation milestones once each. */
export class ActivationClock {
  private readonly timing: ActivationTiming;
  private onFirstRender?: (t: ActivationTiming) => void;

  constructor(start: number = performance.now()) {
    this.timing = { activateStart: start };
  }

  /** `activate()` returned. */
  activated(): void {
    this.timing.activateEnd ??= performance.now();
    this.timing.activateMs = this.timing.activateEnd - this.timing.activateStart;
  }

  /** VS Code asked for the tree's root items; only the first call counts. */
  treeRequested(): void {
    this.timing.firstTreeRequest ??= performance.now();
  }

  /** The tree resolved its root items; only the first call counts. */
  treeRendered(): void {
    if (this.timing.firstTreeRender !== undefined) return;
    this.timing.firstTreeRender = performance.now();
    this.timing.toFirstRenderMs = this.timing.firstTreeRender - this.timing.activateStart;
    this.onFirstRender?.({ ...this.timing });
  }

  /** Calls `listener` once, when the tree first renders. */
  whenRendered(listener: (t: ActivationTiming) => void): void {
    this.onFirstRender = listener;
  }

  /** A copy of what was recorded so far. */
  snapshot(): ActivationTiming {
    return { ...this.timing };
  }
}
