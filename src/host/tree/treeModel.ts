/**
 * Shapes a conversation's nodes into what the sidebar shows: a chain of messages with no fork is
 * one "run" item, whose children are the runs that start where it forks. Pure, so the shaping is
 * unit tested without VS Code; `treeView.ts` turns these entries into `TreeItem`s.
 */
import { ConversationTree, nodeMetadata, readNodeMetadata } from '../../core/index';
import type { ConversationNode, ConversationSummary, Role } from '../../core/index';
import { flowRowText } from '../chat/flowView';
import { firstLine, formatCost, messageCount, relativeTime, roleName } from '../base/labels';
import { conversationCost, conversationTitle, messageDisplayText, nodeCost } from '../conversations/conversationRules';

/** A chain of nodes, each the only child of the one before, shown as one tree item. */
export interface RunEntry {
  kind: 'run';
  conversationId: string;
  /** Node ids from the first to the last message of the run. */
  nodeIds: string[];
  firstNodeId: string;
  lastNodeId: string;
  role: Role;
  /** "You: Help me design…". */
  label: string;
  /** "6 messages · my-branch · current". */
  description: string;
  tooltip: string;
  branchName?: string;
  /** The current node is in this run. */
  isCurrent: boolean;
  /** The current node is in this run or below it, so the item opens expanded. */
  onCurrentPath: boolean;
  /** How many messages of the run are bookmarked. */
  bookmarks: number;
  /** The first message (the one the item's commands act on) is bookmarked. */
  firstBookmarked: boolean;
  /** The note on the first message, if any. */
  firstNote?: string;
  /**
   * The run's tool steps first (compact rows, one per tool result, `step` set), then the runs that start
   * where this one forks (empty at a leaf).
   */
  children: RunEntry[];
  /** A tool step row: the result node of one call (its run's other commands work on it as on a message). */
  step?: { toolName: string; state: string };
}

/** A conversation at the top level of the tree. */
export interface ConversationEntry {
  kind: 'conversation';
  conversationId: string;
  label: string;
  description: string;
  tooltip: string;
}

/** Anything the Conversations tree shows for a conversation. */
export type TreeEntry = ConversationEntry | RunEntry;

/**
 * The offer above the list to open conversations that other workspaces of these folders left
 * (`otherStoresOffer.ts`): its row, and under it one row per answer, each running `command`.
 */
export interface OfferEntry {
  kind: 'offer';
  label: string;
  description?: string;
  tooltip?: string;
  icon: string;
  /** The answers under the offer's row; an answer row has none and a command. */
  children: OfferEntry[];
  command?: string;
}

/** Every row of the Conversations view. */
export type ViewEntry = TreeEntry | OfferEntry;

/** Whether a row is one of a conversation (what conversation commands act on). */
export function isTreeEntry(entry: ViewEntry | undefined): entry is TreeEntry {
  return entry !== undefined && entry.kind !== 'offer';
}

/**
 * Whether a conversation is listed (tree, Open Conversation): once it has a message. A chat just
 * started holds only its root until the first message is sent, and closing it then deletes it.
 */
export function hasMessages(summary: Pick<ConversationSummary, 'nodeCount'>): boolean {
  return summary.nodeCount > 1;
}

/** The top-level item of one conversation: title, then relative time, message count and cost. */
export function conversationEntry(summary: ConversationSummary, now: number = Date.now()): ConversationEntry {
  const messages = Math.max(0, summary.nodeCount - 1);
  const cost = conversationCost(summary.metadata);
  const title = conversationTitle(summary.metadata);
  const parts = [relativeTime(summary.updatedAt, now), messageCount(messages), formatCost(cost)].filter(Boolean);
  return {
    kind: 'conversation',
    conversationId: summary.conversationId,
    label: title,
    description: parts.join(' · '),
    tooltip: `${title}\nUpdated ${new Date(summary.updatedAt).toLocaleString()}\n${messageCount(messages)}${cost ? `\nCost ${formatCost(cost)}` : ''}`,
  };
}

/** One run (its children are added by `buildRuns`): `start` and the chain of only children after it. */
function buildRun(conversationId: string, start: ConversationNode, tree: ConversationTree, currentNodeId: string, onCurrentPath: ReadonlySet<string>): RunEntry {
  const run = [start];
  let last = start;
  for (;;) {
    const next = tree.children(last.nodeId);
    if (next.length !== 1) break;
    last = next[0];
    run.push(last);
  }
  const nodeIds = run.map((n) => n.nodeId);
  const isCurrent = nodeIds.includes(currentNodeId);
  const branchName = run.find((n) => n.branchName)?.branchName;
  const startText = messageDisplayText(start);
  const compaction = readNodeMetadata(start.metadata, 'compaction');
  const head = compaction
    ? `Summary of ${messageCount(compaction.coveredCount)}`
    : `${roleName(start.message.role)}: ${firstLine(startText) || '(empty)'}`;
  const cost = run.reduce((sum, n) => sum + nodeCost(n), 0);
  const marks = run.map((n) => nodeMetadata(n.metadata));
  const bookmarks = marks.filter((m) => m.bookmarked === true).length;
  const notes = marks.map((m) => m.note?.trim()).filter((note): note is string => !!note);
  const description = [
    run.length > 1 ? messageCount(run.length) : '',
    branchName ?? '',
    flowRowText(run),
    bookmarks === 0 ? '' : run.length === 1 ? 'bookmarked' : bookmarks === 1 ? '1 bookmark' : `${bookmarks} bookmarks`,
    notes.length === 0 ? '' : notes.length === 1 ? `note: ${firstLine(notes[0], 40)}` : `${notes.length} notes`,
    formatCost(cost),
    isCurrent ? '● current' : '',
  ].filter(Boolean).join(' · ');
  const shown = 6;
  const full = startText.trim();
  const tooltip = run
    .slice(0, shown)
    .flatMap((n, i) => [
      `${roleName(n.message.role)}: ${i === 0 ? (full.length > TOOLTIP_TEXT ? `${full.slice(0, TOOLTIP_TEXT - 1)}…` : full) : firstLine(messageDisplayText(n), 100)}${marks[i].bookmarked ? '  (bookmarked)' : ''}${n.nodeId === currentNodeId ? '  ← current' : ''}`,
      ...(marks[i].note?.trim() ? [`    Note: ${firstLine(marks[i].note as string, 100)}`] : []),
    ])
    .concat(run.length > shown ? [`… ${run.length - shown} more`] : [])
    .join('\n');
  return {
    kind: 'run',
    conversationId,
    nodeIds,
    firstNodeId: start.nodeId,
    lastNodeId: last.nodeId,
    role: start.message.role,
    label: head,
    description,
    tooltip,
    branchName,
    isCurrent,
    onCurrentPath: onCurrentPath.has(start.nodeId),
    bookmarks,
    firstBookmarked: marks[0].bookmarked === true,
    ...(marks[0].note?.trim() ? { firstNote: marks[0].note.trim() } : {}),
    children: [],
  };
}

/** How much of a run's first message its tooltip shows. */
const TOOLTIP_TEXT = 1000;
/** How long a sibling's label text may be, so its model and time still fit a default-width sidebar. */
const SIBLING_LABEL = 32;

/**
 * The words of `text` from where it first differs from all of `others`, with "…" for the shared
 * words left out: "Explain the cache briefly" beside "Explain the cache in detail" is "…briefly".
 * The whole text when nothing is shared, or when it differs only by ending early.
 */
export function distinctWords(text: string, others: readonly string[]): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  let shared = 0;
  for (const other of others) {
    const theirs = other.trim().split(/\s+/);
    let k = 0;
    while (k < words.length && k < theirs.length && words[k] === theirs[k]) k++;
    shared = Math.max(shared, k);
  }
  return shared === 0 || shared >= words.length ? words.join(' ') : `…${words.slice(shared).join(' ')}`;
}

/**
 * Siblings at a fork say what tells them apart: the words where their first messages differ, and
 * the model and time of each in front of the description. Full texts stay in the tooltips.
 */
function labelSiblings(runs: readonly RunEntry[], tree: ConversationTree, now: number): void {
  if (runs.length < 2) return;
  const firsts = runs.map((r) => tree.get(r.firstNodeId));
  const texts = firsts.map((n) => messageDisplayText(n).split(/\r?\n/).map((l) => l.trim()).filter(Boolean).join(' '));
  runs.forEach((run, i) => {
    const first = firsts[i];
    const sameRole = runs.map((r, j) => (j !== i && r.role === run.role ? texts[j] : undefined)).filter((t): t is string => t !== undefined);
    run.label = `${roleName(run.role)}: ${firstLine(distinctWords(texts[i], sameRole), SIBLING_LABEL) || '(empty)'}`;
    const model = run.role === 'assistant' ? readNodeMetadata(first.metadata, 'model') : undefined;
    run.description = [model ?? '', relativeTime(first.timestamp, now), run.description].filter(Boolean).join(' · ');
  });
}

/**
 * The runs at the top of a conversation's message tree. The root is shown only when it holds a
 * system prompt; an empty root is skipped, so its children (the first user messages) are the top.
 * Built with a work list, not recursion, so a path with thousands of forks cannot overflow the stack.
 */
export function buildRuns(conversationId: string, nodes: readonly ConversationNode[], currentNodeId: string, now: number = Date.now()): RunEntry[] {
  if (!nodes.some((n) => n.parentId === null)) return [];
  const tree = new ConversationTree(nodes);
  const onCurrentPath = new Set(tree.has(currentNodeId) ? tree.path(currentNodeId).map((n) => n.nodeId) : []);
  const make = (start: ConversationNode) => buildRun(conversationId, start, tree, currentNodeId, onCurrentPath);
  const root = tree.root;
  const top = root.message.content.trim() ? [make(root)] : tree.children(root.nodeId).map(make);
  labelSiblings(top, tree, now);
  const pending = [...top];
  while (pending.length > 0) {
    const run = pending.pop() as RunEntry;
    run.children.push(...toolSteps(run, tree, currentNodeId));
    const forks: RunEntry[] = [];
    for (const child of tree.children(run.lastNodeId)) {
      const entry = make(child);
      forks.push(entry);
      pending.push(entry);
    }
    labelSiblings(forks, tree, now);
    run.children.push(...forks);
  }
  return top;
}

/** The compact rows of a run's tool results: `read_file` with how the call ended and how long it ran. */
function toolSteps(run: RunEntry, tree: ConversationTree, currentNodeId: string): RunEntry[] {
  const steps: RunEntry[] = [];
  for (const nodeId of run.nodeIds) {
    const node = tree.get(nodeId);
    if (node.message.role !== 'tool') continue;
    const info = readNodeMetadata(node.metadata, 'toolResult');
    const toolName = node.message.name ?? 'tool';
    const state = info?.status ?? 'done';
    const ms = info?.startedAt ? Date.parse(info.endedAt) - Date.parse(info.startedAt) : NaN;
    const duration = Number.isFinite(ms) ? (ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1000).toFixed(1)} s`) : '';
    const md = nodeMetadata(node.metadata);
    steps.push({
      kind: 'run',
      conversationId: run.conversationId,
      nodeIds: [nodeId],
      firstNodeId: nodeId,
      lastNodeId: nodeId,
      role: 'tool',
      label: toolName,
      description: [state, duration, nodeId === currentNodeId ? '● current' : ''].filter(Boolean).join(' · '),
      tooltip: `${toolName}: ${state}${duration ? ` in ${duration}` : ''}\n${firstLine(node.message.content, 200)}`,
      isCurrent: nodeId === currentNodeId,
      onCurrentPath: false,
      bookmarks: md.bookmarked === true ? 1 : 0,
      firstBookmarked: md.bookmarked === true,
      ...(md.note?.trim() ? { firstNote: md.note.trim() } : {}),
      children: [],
      step: { toolName, state },
    });
  }
  return steps;
}

/** Finds the run that contains `nodeId`, depth first, with a work list (no recursion). */
export function findRun(runs: readonly RunEntry[], nodeId: string): RunEntry | undefined {
  const pending = [...runs].reverse();
  while (pending.length > 0) {
    const run = pending.pop() as RunEntry;
    if (run.nodeIds.includes(nodeId)) return run;
    for (let i = run.children.length - 1; i >= 0; i--) pending.push(run.children[i]);
  }
  return undefined;
}

/** The deepest node reached by always following the newest child from `nodeId`: a branch's tip. */
export function branchTip(nodes: readonly ConversationNode[], nodeId: string): string {
  const tree = new ConversationTree(nodes);
  let id = nodeId;
  for (;;) {
    const next = tree.children(id);
    if (next.length === 0) return id;
    id = next[next.length - 1].nodeId;
  }
}

/** What the offer's rows say about the stores found (`otherStoresOffer.ts` runs the answers). */
export interface OfferStore {
  /** "project", "team.code-workspace: app, lib"… */
  where: string;
  conversationIds: readonly string[];
  size: string;
  lastUsed: Date;
}

/**
 * The offer's row and its two answers: "Conversations from this folder were found in another
 * workspace", described with how many (a conversation two stores kept counts once) and when last used.
 */
export function otherStoresOffer(stores: readonly OfferStore[], folderCount: number, commands: { open: string; dismiss: string }, now: number = Date.now()): OfferEntry {
  const count = new Set(stores.flatMap((s) => s.conversationIds)).size;
  const newest = Math.max(...stores.map((s) => s.lastUsed.getTime()));
  const from = folderCount > 1 ? 'these folders' : 'this folder';
  const inWhat = stores.length > 1 ? `${stores.length} other workspaces` : 'another workspace';
  const conversations = `${count} conversation${count === 1 ? '' : 's'}`;
  const lastUsed = `last used ${relativeTime(new Date(newest).toISOString(), now)}`;
  const described = `${conversations}, ${lastUsed}`;
  return {
    kind: 'offer',
    // Short enough for a narrow sidebar; the sentence is in the tooltip.
    label: `${conversations} from ${inWhat}`,
    description: lastUsed,
    tooltip: [
      `Conversations from ${from} were found in ${inWhat} (${described}):`,
      ...stores.map((s) => `• ${s.where}: ${s.conversationIds.length} conversation${s.conversationIds.length === 1 ? '' : 's'}, ${s.size}, last used ${relativeTime(s.lastUsed.toISOString(), now)}`),
      'Open Them Here copies them into this workspace (the other stores stay as they are).',
    ].join('\n'),
    icon: 'history',
    children: [
      { kind: 'offer', label: 'Open Them Here', icon: 'check', children: [], command: commands.open, tooltip: `Copy the ${conversations} into this workspace's store` },
      { kind: 'offer', label: 'Dismiss', icon: 'close', children: [], command: commands.dismiss, tooltip: 'Do not offer them again in this workspace ("Arbor: Find Conversations from Other Workspaces" still finds them)' },
    ],
  };
}

/** In an untrusted workspace nothing is read before the user asks: the offer is to look. */
export function untrustedOtherStoresOffer(folderCount: number, commands: { open: string; dismiss: string }): OfferEntry {
  const of = folderCount > 1 ? 'these folders' : 'this folder';
  return {
    kind: 'offer',
    label: `Conversations of ${of} may be in other workspaces`,
    description: 'not looked for: this workspace is not trusted',
    tooltip: `Other workspaces of ${of} may have left conversations in VS Code's workspace storage. Arbor reads them only when asked, since this workspace is not trusted.`,
    icon: 'history',
    children: [
      { kind: 'offer', label: 'Look for Them…', icon: 'search', children: [], command: commands.open },
      { kind: 'offer', label: 'Dismiss', icon: 'close', children: [], command: commands.dismiss },
    ],
  };
}
