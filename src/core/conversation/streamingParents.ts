/**
 * Counts the answers streaming (and the tool runs writing) under each parent node right now, so that
 * a branch an answer is still going into is not deleted from under it.
 */
export class StreamingParents {
  private readonly counts = new Map<string, number>();

  /** Passes `stream` through, counted under `parent` until it ends, fails or is stopped. */
  async *track<T, R>(parent: string, stream: AsyncGenerator<T, R>): AsyncGenerator<T, R> {
    const held = this.hold(parent);
    try {
      return yield* stream;
    } finally {
      held.release();
    }
  }

  /**
   * Counts a longer write (a tool run) under `parent` until released; `move` follows it as it adds
   * nodes, so the branch below its newest node is protected too.
   */
  hold(parent: string): { move(to: string): void; release(): void } {
    let at: string | undefined = parent;
    this.counts.set(parent, (this.counts.get(parent) ?? 0) + 1);
    const drop = (node: string) => {
      const left = (this.counts.get(node) ?? 1) - 1;
      if (left > 0) this.counts.set(node, left);
      else this.counts.delete(node);
    };
    return {
      move: (to) => {
        if (at === undefined || at === to) return;
        drop(at);
        at = to;
        this.counts.set(to, (this.counts.get(to) ?? 0) + 1);
      },
      release: () => {
        if (at !== undefined) drop(at);
        at = undefined;
      },
    };
  }

  /** Whether an answer is streaming into the subtree that starts at `nodeId`; ancestry comes from the tree. */
  streamsInto(nodeId: string, isSelfOrAncestor: (ancestorId: string, nodeId: string) => boolean): boolean {
    return [...this.counts.keys()].some((parent) => isSelfOrAncestor(nodeId, parent));
  }
}
