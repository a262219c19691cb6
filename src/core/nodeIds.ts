/**
 * Node ids. A node id is a short opaque string, unique within its conversation and never reused; the
 * root's id is `""`. The store gives ids out from a per-conversation counter under its write lock,
 * so two processes adding to one conversation at once still get distinct ids. Only the store maps
 * an id to its row key; everything else treats ids as opaque and walks the tree instead.
 *
 * Ids start with a letter so they can never be mistaken for the dataknobs dot paths ("0.1.2") that
 * stores of schema 1.x used as ids, which are still accepted where a legacy id may come back.
 */

/** The id of the root node, which holds the system prompt (or an empty system node). */
export const ROOT_NODE_ID = '';

const PREFIX = 'n';

/** The id of the node with the store's sequence number `seq` (0 is the root). */
export function formatNodeId(seq: number): string {
  return seq === 0 ? ROOT_NODE_ID : PREFIX + seq.toString(36);
}

/** The sequence number of an id made by `formatNodeId`; undefined for anything else. */
export function nodeSeqOf(nodeId: string): number | undefined {
  if (nodeId === ROOT_NODE_ID) return 0;
  if (nodeId.length < 2 || nodeId[0] !== PREFIX || !/^[0-9a-z]+$/.test(nodeId.slice(1)) || nodeId[1] === '0') return undefined;
  const seq = parseInt(nodeId.slice(1), 36);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
}

/** Whether `value` is a dataknobs dot path such as `"0.1.2"` (the empty root path included). */
export function isDotPath(value: string): boolean {
  return value === '' || /^(0|[1-9]\d*)(\.(0|[1-9]\d*))*$/.test(value);
}

/** The child positions of a dot path: `"0.1.2"` → `[0, 1, 2]`, `""` → `[]`. */
export function dotPathSegments(dotPath: string): number[] {
  return dotPath === '' ? [] : dotPath.split('.').map(Number);
}
