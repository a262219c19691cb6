/**
 * The window's tools: the providers that offer them (built-in workspace tools, MCP servers, other
 * extensions' tools) and the user's grants, kept in VS Code's storage: per conversation and per
 * workspace in the workspace's state, "Always allow" in the global state. "Arbor: Reset Tool
 * Approvals" forgets them all. The tools picker's default for new chats is kept in the global state
 * too (not a setting, which a repository's `.vscode/settings.json` could tick tools with).
 */
import type * as vscode from 'vscode';
import { parseToolChoice, type ToolChoice } from '../../core/index';
import type { OfferedTool } from './offeredTool';
import type { GrantScope, ToolGrants } from './toolApprovals';

/** Offers tools; may start something on first call (an MCP server), so it is asked only when a chat needs tools. */
export type ToolProvider = () => Promise<readonly OfferedTool[]> | readonly OfferedTool[];

/** How a provider takes part besides offering its tools for a request. */
export interface ToolProviderOptions {
  /**
   * The tools it can offer now without starting or waiting for anything (the servers already running),
   * for the context meter and the tools picker; default: `provide` itself, for providers that start nothing.
   */
  ready?: ToolProvider;
}

const WORKSPACE_KEY = 'arbor.toolGrants.workspace';
const CONVERSATIONS_KEY = 'arbor.toolGrants.conversations';
const ALWAYS_KEY = 'arbor.toolGrants.always';
const DEFAULT_CHOICE_KEY = 'arbor.toolChoice.default';

/** See the file's header. */
export class ToolServices {
  private readonly providers: Array<{ name: string; provide: ToolProvider; ready: ToolProvider }> = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly workspaceState: vscode.Memento,
    private readonly globalState: vscode.Memento,
    private readonly warn: (message: string) => void,
  ) {}

  /** Adds a provider; the returned function removes it. */
  addProvider(name: string, provide: ToolProvider, options: ToolProviderOptions = {}): () => void {
    const entry = { name, provide, ready: options.ready ?? provide };
    this.providers.push(entry);
    this.changed();
    return () => {
      const at = this.providers.indexOf(entry);
      if (at >= 0) this.providers.splice(at, 1);
      this.changed();
    };
  }

  /** Listens for changes of the tools on offer (a server started or stopped, an extension came); returns the unsubscribe. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The tools on offer changed: chats recount their meters. */
  changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Every provider's tools for a request (starting what must start); a provider that fails is logged and left out, with the first of two same-named tools kept. */
  offered(): Promise<OfferedTool[]> {
    return this.collect('provide');
  }

  /** The tools that can be offered now, without starting anything: what the meter and the tools picker show. */
  ready(): Promise<OfferedTool[]> {
    return this.collect('ready');
  }

  private async collect(which: 'provide' | 'ready'): Promise<OfferedTool[]> {
    const lists = await Promise.all(
      this.providers.map(async (entry) => {
        const { name } = entry;
        const provide = entry[which];
        try {
          return await provide();
        } catch (err) {
          // Only a request's listing is told of: the meter's quiet look at the ready tools would repeat it on every keystroke.
          if (which === 'provide') this.warn(`The ${name} tools are left out of this request: ${err instanceof Error ? err.message : String(err)}`);
          return [];
        }
      }),
    );
    const seen = new Set<string>();
    const tools: OfferedTool[] = [];
    for (const tool of lists.flat()) {
      if (seen.has(tool.tool.name)) {
        if (which === 'provide') this.warn(`Two tools are named "${tool.tool.name}"; "${tool.displayName}" is left out.`);
        continue;
      }
      seen.add(tool.tool.name);
      tools.push(tool);
    }
    return tools;
  }

  /** The tools picker's choice for chats that made none of their own; `undefined` when none was saved. */
  defaultChoice(): ToolChoice | undefined {
    return parseToolChoice(this.globalState.get<unknown>(DEFAULT_CHOICE_KEY));
  }

  /** Saves the picker's choice as the default for new chats (and for chats that made none). */
  async setDefaultChoice(choice: ToolChoice): Promise<void> {
    await this.globalState.update(DEFAULT_CHOICE_KEY, choice);
  }

  /** The grants in force for a conversation. */
  grants(conversationId: string): ToolGrants {
    return {
      conversation: new Set(this.conversationGrants().get(conversationId) ?? []),
      workspace: new Set(stringList(this.workspaceState.get<unknown>(WORKSPACE_KEY))),
      always: new Set(stringList(this.globalState.get<unknown>(ALWAYS_KEY))),
    };
  }

  /** Keeps an Allow beyond this call. */
  async grant(conversationId: string, key: string, scope: GrantScope): Promise<void> {
    const add = (list: readonly string[]) => (list.includes(key) ? [...list] : [...list, key]);
    if (scope === 'conversation') {
      const conversations = this.conversationGrants();
      conversations.set(conversationId, add(conversations.get(conversationId) ?? []));
      // Object.fromEntries defines each id as an own property, so `__proto__` is stored as an id like any other.
      await this.workspaceState.update(CONVERSATIONS_KEY, Object.fromEntries(conversations));
    } else if (scope === 'workspace') {
      await this.workspaceState.update(WORKSPACE_KEY, add(stringList(this.workspaceState.get<unknown>(WORKSPACE_KEY))));
    } else if (scope === 'always') {
      await this.globalState.update(ALWAYS_KEY, add(stringList(this.globalState.get<unknown>(ALWAYS_KEY))));
    }
  }

  /**
   * Each conversation's grants, by id, in a Map: any id works, `constructor` and `__proto__` included (a
   * lookup on the stored object would find `Object.prototype`'s members). Stored as an object of id → keys,
   * as earlier releases stored it; only its own properties are read.
   */
  private conversationGrants(): Map<string, string[]> {
    const stored = this.workspaceState.get<unknown>(CONVERSATIONS_KEY);
    const out = new Map<string, string[]>();
    if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
      for (const [id, keys] of Object.entries(stored)) if (Array.isArray(keys)) out.set(id, stringList(keys));
    }
    return out;
  }

  /** Forgets every grant (conversation, workspace and always); returns how many there were. */
  async resetGrants(): Promise<number> {
    const count =
      [...this.conversationGrants().values()].reduce((n, list) => n + list.length, 0) +
      stringList(this.workspaceState.get<unknown>(WORKSPACE_KEY)).length +
      stringList(this.globalState.get<unknown>(ALWAYS_KEY)).length;
    await this.workspaceState.update(CONVERSATIONS_KEY, undefined);
    await this.workspaceState.update(WORKSPACE_KEY, undefined);
    await this.globalState.update(ALWAYS_KEY, undefined);
    return count;
  }
}

/**
 * The grant keys of a stored list. Anything else (a value a hand left) is no grant, and neither is a
 * blanket `<tool>@outside` that releases before kept for reads outside the workspace: an outside grant
 * now names its folder (`<tool>@outside:<folder>/`), so the old key is dropped on read and on the next write.
 */
function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && !v.endsWith('@outside')) : [];
}
