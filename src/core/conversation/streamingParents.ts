/**
 * Counts the answers streaming under each parent node right now, so that a branch an answer is
 * still streaming into is not deleted from under it.
 */
export class StreamingParents {
  private readonly counts = new Map<string, number>();

  /** Passes `stream` through, counted under `parent` until it ends, fails or is stopped. */
  async *track<T, R>(parent: string, stream: AsyncGenerator<T, R>): AsyncGenerator<T, R> {
    this.counts.set(parent, (this.counts.get(parent) ?? 0) + 1);
    try {
      return yield* stream;
    } finally {
      const left = (this.counts.get(parent) ?? 1) - 1;
      if (left > 0) this.counts.set(parent, left);
      else this.counts.delete(parent);
    }
  }

  /** Whether an answer is streaming into the subtree that starts at `nodeId`; ancestry comes from the tree. */
  streamsInto(nodeId: string, isSelfOrAncestor: (ancestorId: string, nodeId: string) => boolean): boolean {
    return [...this.counts.keys()].some((parent) => isSelfOrAncestor(nodeId, parent));
  }
}
