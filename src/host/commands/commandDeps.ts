import type { ActivationClock } from '../base/activationTiming';
import type { ChatPanels } from '../chat/chatPanel';
import type { Indexing } from '../workspace/indexing';
import type { CommandServices } from './commandServices';
import type { TreeViewHandle } from '../tree/treeView';
import { isTreeEntry, type ConversationEntry, type RunEntry, type TreeEntry } from '../tree/treeModel';

/**
 * What the command handlers use; built once in `activate()`. A room above commands/ that needs other
 * members of the services (imports/) names its own interface as `S`.
 */
export interface CommandDeps<S = CommandServices> {
  services: S;
  panels: ChatPanels;
  tree: TreeViewHandle;
  clock: ActivationClock;
  indexing: Indexing;
}

/** A tree item a context-menu command was invoked on, or the tree's selection when run otherwise. */
export function targetOf(deps: CommandDeps, arg: unknown): TreeEntry | undefined {
  if (arg && typeof arg === 'object' && 'kind' in arg && 'conversationId' in arg) return arg as TreeEntry;
  const selected = deps.tree.view.selection[0];
  return isTreeEntry(selected) ? selected : undefined;
}

/**
 * The items a command applies to. Run from the context menu of an item that is part of a multiple
 * selection, VS Code passes the item and the whole selection: then the selected items of the same kind,
 * else the item alone (or, from the palette, the tree's selection).
 */
export function targetsOf(deps: CommandDeps, arg: unknown, selected?: unknown): TreeEntry[] {
  const target = targetOf(deps, arg);
  if (!target) return [];
  const selection: readonly TreeEntry[] = Array.isArray(selected) ? selected.filter(isTreeEntry) : arg === undefined ? deps.tree.view.selection.filter(isTreeEntry) : [];
  return selection.some((e) => itemKey(e) === itemKey(target)) ? selection.filter((e) => e.kind === target.kind) : [target];
}

/** What tells tree items apart: the conversation, and for a message item its first message. */
function itemKey(entry: TreeEntry): string {
  return entry.kind === 'conversation' ? entry.conversationId : `${entry.conversationId}\u0000${entry.firstNodeId}`;
}

/** The run a node command was invoked on. */
export function runOf(deps: CommandDeps, arg: unknown): RunEntry | undefined {
  const t = targetOf(deps, arg);
  return t?.kind === 'run' ? t : undefined;
}

/** The conversation a conversation command applies to: the item, else the active chat's. */
export function conversationIdOf(deps: CommandDeps, arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const t = targetOf(deps, arg);
  if (t) return t.conversationId;
  return deps.panels.activeConversationId;
}

export type { ConversationEntry };
