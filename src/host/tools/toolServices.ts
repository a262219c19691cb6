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

/** What a provider may add beside `provide`, for readers that must not start or wait for anything. */
export interface ToolProviderHooks {
  /**
   * The tools it can offer now, without starting or waiting for anything (MCP: the servers running now).
   * Without it, `ready()` takes `provide()` when that answers at once (not a promise), else nothing.
   */
  ready?: () => readonly OfferedTool[];
  /** Starts what the provider needs without waiting for it (MCP: the configured servers), e.g. when a chat with tools opens. */
  warmUp?: () => void;
  /** Fires when what `ready` answers may have changed (MCP: a server started, stopped or changed its tools). */
  onDidChange?: (listener: () => void) => { dispose(): void };
}

const WORKSPACE_KEY = 'arbor.toolGrants.workspace';
const CONVERSATIONS_KEY = 'arbor.toolGrants.conversations';
const ALWAYS_KEY = 'arbor.toolGrants.always';
const DEFAULT_CHOICE_KEY = 'arbor.toolChoice.default';

/** See the file's header. */
export class ToolServices {
  private readonly providers: Array<{ name: string; provide: ToolProvider; hooks: ToolProviderHooks }> = [];
  private readonly readyListeners = new Set<() => void>();

  constructor(
    private readonly workspaceState: vscode.Memento,
    private readonly globalState: vscode.Memento,
    private readonly warn: (message: string) => void,
  ) {}

  /** Adds a provider; the returned function removes it. */
  addProvider(name: string, provide: ToolProvider, hooks: ToolProviderHooks = {}): () => void {
    const entry = { name, provide, hooks };
    this.providers.push(entry);
    const subscription = hooks.onDidChange?.(() => this.fireReady());
    this.fireReady();
    return () => {
      const at = this.providers.indexOf(entry);
      if (at >= 0) this.providers.splice(at, 1);
      subscription?.dispose();
      this.fireReady();
    };
  }

  /**
   * The tools every provider can offer now, without starting, asking or waiting for anything: for the
   * context meter and the tools picker, which read it often. The first of two same-named tools is kept,
   * as in `offered()`; a provider that throws gives none here.
   */
  ready(): OfferedTool[] {
    const lists = this.providers.map(({ provide, hooks }) => {
      try {
        if (hooks.ready) return hooks.ready();
        const now = provide();
        return Array.isArray(now) ? (now as readonly OfferedTool[]) : [];
      } catch {
        return [];
      }
    });
    const seen = new Set<string>();
    return lists.flat().filter((tool) => !seen.has(tool.tool.name) && seen.add(tool.tool.name));
  }

  /** Starts what the providers need for a request with tools, without waiting (call it when a chat with tools opens). */
  warmUp(): void {
    for (const { name, hooks } of this.providers) {
      try {
        hooks.warmUp?.();
      } catch (err) {
        this.warn(`The ${name} tools could not start: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  /** Calls `listener` when what `ready()` answers may have changed; the returned function stops that. */
  onDidChangeReady(listener: () => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  private fireReady(): void {
    for (const listener of [...this.readyListeners]) listener();
  }

  /** Every provider's tools; a provider that fails is logged and left out, with the first of two same-named tools kept. */
  async offered(): Promise<OfferedTool[]> {
    const lists = await Promise.all(
      this.providers.map(async ({ name, provide }) => {
        try {
          return await provide();
        } catch (err) {
          this.warn(`The ${name} tools are left out of this request: ${err instanceof Error ? err.message : String(err)}`);
          return [];
        }
      }),
    );
    const seen = new Set<string>();
    const tools: OfferedTool[] = [];
    for (const tool of lists.flat()) {
      if (seen.has(tool.tool.name)) {
        this.warn(`Two tools are named "${tool.tool.name}"; "${tool.displayName}" is left out.`);
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
