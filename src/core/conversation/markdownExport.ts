import { fenceFor } from '../markdownFence';
import { nodeMetadata, readConversationMetadata } from '../metadataKeys';
import { ConversationTree, ROOT_NODE_ID } from './conversationTree';
import type { ConversationNode, ConversationState } from '../types';

/** Options of the Markdown export. */
export interface MarkdownExportOptions {
  /** Every branch (each path root→leaf) as its own section; otherwise only root→current. */
  allBranches?: boolean;
  /** Image links by node id, written after the message's text (see `imageExports.ts`). */
  images?: Record<string, MarkdownImageLink[]>;
}

/** One image of a message in a Markdown export: its alt text (the file name) and where the file is. */
export interface MarkdownImageLink {
  alt: string;
  href: string;
}

/** An image link whose alt text cannot end the link early. */
const imageLink = (link: MarkdownImageLink) => `![${link.alt.replace(/[[\]\\]/g, '\\$&')}](${link.href})`;

const ROLE_TITLES: Record<string, string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool', function: 'Function' };

function fence(text: string, lang = ''): string {
  const ticks = fenceFor(text);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** Text as a Markdown block quote, every line of it. */
function quote(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}

function renderNode(node: ConversationNode, tree: ConversationTree, images?: MarkdownImageLink[]): string {
  const m = node.message;
  const facts = [`node \`${node.nodeId === ROOT_NODE_ID ? '(root)' : tree.dotPath(node.nodeId)}\``];
  const metadata = nodeMetadata(node.metadata);
  if (metadata.model !== undefined) facts.push(metadata.model);
  if (metadata.costUsd !== undefined && metadata.costUsd > 0) facts.push(`$${metadata.costUsd.toFixed(6)}`);
  if (node.promptName) facts.push(`prompt \`${node.promptName}\``);
  if (metadata.interrupted === true) facts.push('interrupted');
  if (metadata.bookmarked === true) facts.push('bookmarked');
  const title = `${ROLE_TITLES[m.role] ?? m.role}${m.name ? ` (${m.name})` : ''}`;
  const parts = [`### ${title}\n\n_${facts.join(' · ')}_`];
  if (m.thinking) parts.push(`<details><summary>Thinking</summary>\n\n${m.thinking}\n\n</details>`);
  if (m.content) parts.push(m.content);
  if (images?.length) parts.push(images.map(imageLink).join('\n'));
  for (const call of m.toolCalls ?? []) {
    parts.push(`Tool call \`${call.function.name}\` (\`${call.id}\`):\n\n${fence(call.function.arguments, 'json')}`);
  }
  if (metadata.error !== undefined) parts.push(`> Error: ${metadata.error}`);
  if (metadata.note?.trim()) parts.push(quote(`**Note:** ${metadata.note.trim()}`));
  return parts.join('\n\n');
}

function renderPath(nodes: ConversationNode[], tree: ConversationTree, images?: Record<string, MarkdownImageLink[]>): string {
  return nodes
    .filter((n) => !(n.nodeId === ROOT_NODE_ID && n.message.content === ''))
    .map((n) => renderNode(n, tree, images?.[n.nodeId]))
    .join('\n\n');
}

/**
 * Writes a conversation as Markdown: the path root→current, or with `allBranches` every path
 * root→leaf as a `##` section named by its branch name or its leaf's dot path, the current one marked.
 * Nodes are named by their dataknobs dot paths ("0.1.2"), which a reader can follow.
 */
export function conversationToMarkdown(state: ConversationState, options: MarkdownExportOptions = {}): string {
  const tree = new ConversationTree(state.nodes);
  const title = readConversationMetadata(state.metadata, 'title') ?? `Conversation ${state.conversationId}`;
  const header = `# ${title}\n\n_Conversation \`${state.conversationId}\`, created ${state.createdAt}, updated ${state.updatedAt}._`;
  if (!options.allBranches) {
    return `${header}\n\n${renderPath(tree.path(state.currentNodeId), tree, options.images)}\n`;
  }
  const leaves = tree.subtree(ROOT_NODE_ID).filter((n) => tree.children(n.nodeId).length === 0);
  const sections = leaves.map((leaf, i) => {
    const path = tree.path(leaf.nodeId);
    const named = [...path].reverse().find((n) => n.branchName)?.branchName;
    const holdsCurrent = path.some((n) => n.nodeId === state.currentNodeId);
    const label = `Branch ${i + 1}: ${named ?? `ends at node ${leaf.nodeId === ROOT_NODE_ID ? '(root)' : tree.dotPath(leaf.nodeId)}`}${holdsCurrent ? ' (current)' : ''}`;
    return `## ${label}\n\n${renderPath(path, tree, options.images)}`;
  });
  return `${header}\n\n${sections.join('\n\n')}\n`;
}
