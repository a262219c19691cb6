import type { ActivationClock } from './activationTiming';
import type { ChatPanels } from './chatPanel';
import type { Indexing } from './indexing';
import type { Services } from './services';
import type { TreeViewHandle } from './treeView';
import type { ConversationEntry, RunEntry, TreeEntry } from './treeModel';

/** What the command handlers use; built once in `activate()`. */
export interface CommandDeps {
  services: Services;
  panels: ChatPanels;
  tree: TreeViewHandle;
  clock: ActivationClock;
  indexing: Indexing;
}

/** A tree item a context-menu command was invoked on, or the tree's selection when run otherwise. */
export function targetOf(deps: CommandDeps, arg: unknown): TreeEntry | undefined {
  if (arg && typeof arg === 'object' && 'kind' in arg && 'conversationId' in arg) return arg as TreeEntry;
  return deps.tree.view.selection[0];
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
