/**
 * Turns a conversation into the `ChatState` the webview shows: the window of the current path it
 * holds, each message with its siblings, model, usage, cost, retrieved-context chips and
 * attachments. Pure: the path comes through a `PathSource`, so a 10,000-message path costs its ids
 * and the few views in the window, not a copy of every node.
 */
import { nodeMetadata, nodeRagMetadata, type CompactionInfo, type ConversationNode, type PromptInfo, type RagMetadata, type RecordedFileChange } from '../../core/index';
import type { Attachment, BranchPoint, ChatState, CompactionView, ContextChip, ErrorView, FileChangeView, ImageSupport, ImageView, MessageFileChanges, MessageView, PromptSummary, SiblingInfo } from '../../shared/protocol';
import type { ChatWindow } from './chatWindow';
import { messageDisplayText } from '../conversations/conversationRules';
import { instructionChips } from '../prompts/instructionChips';
import { promptMessageInfo, type PromptVersionLookup } from '../conversations/promptMessages';
import { toolCallViews, type ToolCallLookup } from '../tools/toolCallViews';
import { severalView } from './several/severalView';
import { structuredView } from './structuredChat';
import { flowMarkView } from './flowView';

/** The current path of a conversation, read one message at a time (a `ConversationManager` is one). */
export interface PathSource {
  /** Ids root→current, without an empty root. */
  readonly pathIds: readonly string[];
  node(nodeId: string): ConversationNode;
  /** The ids of a node's parent's children in sibling order (the node alone for the root). */
  siblingIds(nodeId: string): readonly string[];
}

/** What `buildChatState` needs besides the path. */
export interface ChatStateInput {
  conversationId: string;
  title: string;
  currentNodeId: string;
  path: PathSource;
  totalCostUsd: number;
  branchCostUsd: number;
  model: string;
  provider: string;
  busy: boolean;
  restricted: boolean;
  /** The banner of a pending Branch from Here. */
  branchPoint?: BranchPoint;
  /** The user message at the end of the path that has no answer, with the failure that left it so. */
  unanswered?: { nodeId: string; error?: ErrorView };
  /** The version each prompt file has now, so prompt messages say whether theirs changed. */
  promptVersion?: PromptVersionLookup;
  /** The compaction in effect on the path: the messages before its first kept one show as covered. */
  compaction?: { nodeId: string; firstKeptNodeId: string };
  /** The chat's tools: the toggle, and what the cards of tool calls need. */
  tools?: { enabled: boolean; lookup: ToolCallLookup };
  /** The files each node changed (the store's file checkpoints), by node id. */
  fileChanges?: Readonly<Record<string, readonly RecordedFileChange[]>>;
  /** The instruction files the chat excludes now, and the version each recorded file has now (`null`: gone). */
  instructions?: { excluded: readonly string[]; versions?: ReadonlyMap<string, string | null> };
  /** The images of each node that has some, by node id (see `chatImages.ts`). */
  images?: Readonly<Record<string, readonly ImageView[]>>;
  imageSupport?: ImageSupport;
}

function siblingInfo(node: ConversationNode, ids: readonly string[]): SiblingInfo {
  const i = Math.max(0, ids.indexOf(node.nodeId));
  return {
    index: i + 1,
    count: Math.max(1, ids.length),
    prevNodeId: i > 0 ? ids[i - 1] : undefined,
    nextNodeId: i < ids.length - 1 ? ids[i + 1] : undefined,
  };
}

/** The context chips of a node: one per retrieved item that names a file. */
export function chipsOf(node: ConversationNode): ContextChip[] {
  const chips: ContextChip[] = [];
  const seen = new Set<string>();
  const retrievals: readonly RagMetadata[] = nodeRagMetadata(node.metadata);
  for (const rag of retrievals) {
    for (const item of rag.results) {
      if (!item.path) continue;
      const key = `${item.path}:${item.startLine ?? ''}-${item.endLine ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const chip: ContextChip = { path: item.path, startLine: item.startLine, endLine: item.endLine, score: item.score, source: rag.adapter };
      chips.push(item.metadata?.ignored === true ? { ...chip, ignored: true } : chip);
    }
  }
  return chips;
}

/** One node as the webview shows it. The text the user typed is shown, not the rendered prompt. */
export function messageView(node: ConversationNode, siblingIds: readonly string[], promptVersion?: PromptVersionLookup): MessageView {
  const md = nodeMetadata(node.metadata);
  const attachments: Attachment[] = md.attachments ?? [];
  const prompt = promptMessageInfo(node, promptVersion);
  const structured = structuredView(md);
  const flow = flowMarkView(node);
  return {
    nodeId: node.nodeId,
    parentId: node.parentId,
    role: node.message.role,
    content: messageDisplayText(node),
    thinking: node.message.thinking || undefined,
    timestamp: node.timestamp,
    branchName: node.branchName,
    model: md.model || undefined,
    usage: md.usage,
    costUsd: md.costUsd,
    interrupted: md.interrupted === true ? true : undefined,
    error: md.error || undefined,
    siblings: siblingInfo(node, siblingIds),
    chips: chipsOf(node),
    attachments,
    promptName: node.promptName,
    ...(md.systemPrompt ? { systemPrompt: { name: md.systemPrompt.name, path: md.systemPrompt.path, version: md.systemPrompt.gitBlobId } } : {}),
    ...(prompt ? { prompt } : {}),
    bookmarked: md.bookmarked === true ? true : undefined,
    note: md.note?.trim() || undefined,
    ...(md.compaction ? { compaction: compactionView(md.compaction) } : {}),
    ...(md.branchSummary ? { branchSummary: { coveredCount: md.branchSummary.coveredCount, ...(md.branchSummary.model ? { model: md.branchSummary.model } : {}) } } : {}),
    ...(structured ? { structured } : {}),
    ...(flow ? { flow } : {}),
  };
}

/** What the chat shows of a compaction node. */
function compactionView(info: CompactionInfo): CompactionView {
  return {
    coveredCount: info.coveredCount,
    tokensBefore: info.tokensBefore,
    tokensAfter: info.tokensAfter,
    method: info.method,
    trigger: info.trigger,
    ...(info.focus ? { focus: info.focus } : {}),
    ...(info.model ? { model: info.model } : {}),
  };
}

/** The chat state: the window of the path root→current the webview holds (see `ChatWindow`), with only what changed. */
export function buildChatState(input: ChatStateInput, window: ChatWindow): ChatState {
  const { path } = input;
  const { unanswered, compaction } = input;
  const coveredBefore = compaction ? path.pathIds.indexOf(compaction.firstKeptNodeId) : -1;
  // Once any node of the conversation changed a file, every message can bring the files back to its point.
  const hasCheckpoints = input.fileChanges !== undefined && Object.keys(input.fileChanges).length > 0;
  const update = window.update(path.pathIds, (index) => {
    const id = path.pathIds[index];
    const node = path.node(id);
    let view = messageView(node, path.siblingIds(id), input.promptVersion);
    if (index < coveredBefore) view = { ...view, covered: true };
    const following: ConversationNode[] = [];
    for (let i = index + 1; node.message.toolCalls?.length && i < path.pathIds.length && following.length < node.message.toolCalls.length; i++) {
      const next = path.node(path.pathIds[i]);
      if (next.message.role !== 'tool') break;
      following.push(next);
    }
    if (node.message.toolCalls?.length && input.tools) {
      const toolCalls = toolCallViews(node, following, input.tools.lookup);
      if (toolCalls) view = { ...view, toolCalls };
    }
    if (input.fileChanges && node.message.role !== 'tool') {
      const changes = fileChangesView([node, ...following], input.fileChanges);
      if (changes) view = { ...view, fileChanges: changes };
      if (hasCheckpoints) view = { ...view, restoreFilesNodeId: following.at(-1)?.nodeId ?? id };
    }
    if (input.images?.[id]) view = { ...view, images: input.images[id] };
    if (node.message.role === 'tool' && node.message.toolCallId) view = { ...view, toolResultOf: node.message.toolCallId };
    // A request message shows the instruction files its answer was made with (a compaction made just
    // before that answer may stand between them).
    if (node.message.role === 'user' && input.instructions) {
      const answer = answerAfter(path, index);
      const chips = answer ? instructionChips(answer, input.instructions.excluded, input.instructions.versions) : undefined;
      if (chips) view = { ...view, instructions: chips };
    }
    const several = node.metadata.severalRun !== undefined ? severalView(node, path.siblingIds(id).map((s) => path.node(s))) : undefined;
    if (several) view = { ...view, several };
    return unanswered?.nodeId === id ? { ...view, unanswered: unanswered.error ? { error: unanswered.error } : {} } : view;
  });
  return {
    conversationId: input.conversationId,
    title: input.title,
    currentNodeId: input.currentNodeId,
    ...update,
    totalCostUsd: input.totalCostUsd,
    branchCostUsd: input.branchCostUsd,
    model: input.model,
    provider: input.provider,
    busy: input.busy,
    restricted: input.restricted,
    ...(input.branchPoint ? { branchPoint: input.branchPoint } : {}),
    tools: { enabled: input.tools?.enabled ?? false },
    ...(input.imageSupport ? { imageSupport: input.imageSupport } : {}),
  };
}

/** The first answer after the user message at `index` on the path, past a compaction node; none past the next user message. */
function answerAfter(path: PathSource, index: number): ConversationNode | undefined {
  for (let i = index + 1; i < path.pathIds.length && i <= index + 3; i++) {
    const next = path.node(path.pathIds[i]);
    if (next.message.role === 'user') return undefined;
    if (next.message.role === 'assistant' && !nodeMetadata(next.metadata).compaction) return next;
  }
  return undefined;
}

/** The files `nodes` (a message and its tool results) changed, and the last of them to restore to. */
function fileChangesView(nodes: readonly ConversationNode[], byNode: Readonly<Record<string, readonly RecordedFileChange[]>>): MessageFileChanges | undefined {
  const files: FileChangeView[] = [];
  let restoreNodeId: string | undefined;
  for (const n of nodes) {
    for (const c of byNode[n.nodeId] ?? []) {
      files.push({ nodeId: n.nodeId, path: c.path, kind: c.kind, ...(c.linesAdded !== null ? { added: c.linesAdded } : {}), ...(c.linesRemoved !== null ? { removed: c.linesRemoved } : {}) });
      restoreNodeId = n.nodeId;
    }
  }
  return restoreNodeId === undefined ? undefined : { files, restoreNodeId };
}

/** The user prompts of the library as the `/` menu offers them, with defaults as text for the form. */
export function promptSummaries(prompts: readonly PromptInfo[]): PromptSummary[] {
  return prompts
    .filter((p) => p.kind === 'user' || p.kind === 'messages')
    .map((p) => ({
      name: p.name,
      ...(p.kind === 'messages' ? { kind: 'messages' as const } : {}),
      description: p.description,
      params: p.params.map((q) => ({
        name: q.name,
        required: !!q.required,
        default: q.default === undefined ? undefined : typeof q.default === 'string' ? q.default : JSON.stringify(q.default),
        description: q.description,
      })),
    }));
}
