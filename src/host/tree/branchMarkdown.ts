/**
 * One branch (the path from the root to a node) as Markdown, for the side-by-side diff of two
 * branches and for copying a run of messages. Pure.
 */
import { readNodeMetadata } from '../../core/index';
import type { ConversationNode } from '../../core/index';
import { roleName } from '../base/labels';

/** The nodes from the root to `nodeId` (missing ids end the walk). */
export function pathTo(nodes: readonly ConversationNode[], nodeId: string): ConversationNode[] {
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const out: ConversationNode[] = [];
  let id: string | null = nodeId;
  while (id !== null) {
    const node = byId.get(id);
    if (!node) break;
    out.push(node);
    id = node.parentId;
  }
  return out.reverse();
}

/** Messages as Markdown sections, one `## Role` heading each (the model named for answers). */
export function messagesToMarkdown(nodes: readonly ConversationNode[]): string {
  return nodes
    .filter((n) => !(n.parentId === null && !n.message.content.trim()))
    .map((n) => {
      const name = readNodeMetadata(n.metadata, 'model');
      const model = name !== undefined ? ` (${name})` : '';
      const branch = n.branchName ? ` — branch "${n.branchName}"` : '';
      return `## ${roleName(n.message.role)}${model}${branch}\n\n${n.message.content.trimEnd()}\n`;
    })
    .join('\n');
}

/** The branch root→`nodeId` as a Markdown document with a title line. */
export function branchToMarkdown(title: string, nodes: readonly ConversationNode[], nodeId: string): string {
  return `# ${title}\n\n${messagesToMarkdown(pathTo(nodes, nodeId))}`;
}
