/**
 * Which tool calls run without asking. Built-in read-only tools run on their own while they stay inside
 * the workspace; MCP servers' and other extensions' tools ask. `arbor.tools.approval` sets a policy per
 * tool (`auto`, `ask`, `off`), and a user's "Allow in this conversation / workspace / always" is a grant
 * that later calls of the same tool (or the same kind of outside-workspace read) inherit. A tool's own
 * verdict comes first: what it asks about is asked whatever was granted, and what it asks `once` about
 * (a protected file) keeps no grant from its Allow. Pure: the grants come in as sets, so the rules are
 * tested without VS Code.
 */
import type { CallVerdict, OfferedTool } from './offeredTool';

/** A tool's policy: run without asking, ask each time (unless granted), or never offer it. */
export type ToolPolicy = 'auto' | 'ask' | 'off';

/** How far a user's "Allow" reaches. */
export type GrantScope = 'once' | 'conversation' | 'workspace' | 'always';

/** The grants in force for one chat. */
export interface ToolGrants {
  conversation: ReadonlySet<string>;
  workspace: ReadonlySet<string>;
  always: ReadonlySet<string>;
}

/**
 * What the chat does with a call: run it, or put it to the user (with why, for the card); `once`: no
 * grant covers it and its Allow is kept for this call only, so the card offers Allow once and Deny.
 */
export type ApprovalNeed = { kind: 'run'; reason: string } | { kind: 'ask'; reason: string; once?: boolean };

/**
 * The policy `arbor.tools.approval` sets for a tool: keys are a tool's wire name or display name, or a
 * prefix ending in `*` (`everything › *` for every tool of that server). The exact name wins over a
 * prefix, a longer prefix over a shorter one; no key means the default rules.
 */
export function policyFor(offered: OfferedTool, policies: Readonly<Record<string, ToolPolicy>>): ToolPolicy | undefined {
  const names = [offered.tool.name, offered.displayName];
  for (const name of names) if (policies[name]) return policies[name];
  let best: { length: number; policy: ToolPolicy } | undefined;
  for (const [key, policy] of Object.entries(policies)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (names.some((n) => n.startsWith(prefix)) && (!best || prefix.length > best.length)) best = { length: prefix.length, policy };
  }
  return best?.policy;
}

/**
 * The key a grant is kept under: the tool's wire name, with `@outside` for a built-in tool's read
 * outside the workspace, so allowing `read_file` there is a grant of its own.
 */
export function grantKey(offered: OfferedTool, input: Record<string, unknown>): string {
  return offered.outsideWorkspace?.(input) !== undefined ? `${offered.tool.name}@outside` : offered.tool.name;
}

/** Decides whether a call runs at once or asks; see the file's header. */
export function approvalNeed(offered: OfferedTool, input: Record<string, unknown>, policy: ToolPolicy | undefined, grants: ToolGrants): ApprovalNeed {
  const outside = offered.outsideWorkspace?.(input);
  const key = grantKey(offered, input);
  if (grants.always.has(key)) return { kind: 'run', reason: 'always allowed' };
  if (grants.workspace.has(key)) return { kind: 'run', reason: 'allowed in this workspace' };
  if (grants.conversation.has(key)) return { kind: 'run', reason: 'allowed in this conversation' };
  // Reading outside the workspace is asked about whatever the tool's policy, until granted.
  if (outside !== undefined) return { kind: 'ask', reason: `reads outside the workspace: ${outside}` };
  if (policy === 'auto') return { kind: 'run', reason: 'arbor.tools.approval: auto' };
  if (policy === 'ask') return { kind: 'ask', reason: 'arbor.tools.approval: ask' };
  if (offered.source === 'builtin' && offered.tool.readOnly) return { kind: 'run', reason: 'built-in, reads the workspace only' };
  return { kind: 'ask', reason: offered.source === 'mcp' ? `a tool of the MCP server "${offered.server ?? ''}"` : offered.source === 'extension' ? 'a tool of another extension' : 'it may change things' };
}

/**
 * What the chat does with a call the tool's own verdict (`OfferedTool.checkCall`) put to the user or
 * left to the rules: an `ask` verdict asks, whatever was granted or set (with `once` kept); no verdict
 * leaves it to `approvalNeed`. A `run` or `deny` verdict is the caller's to act on before this.
 */
export function callNeed(offered: OfferedTool, input: Record<string, unknown>, verdict: CallVerdict | undefined, policy: ToolPolicy | undefined, grants: ToolGrants): ApprovalNeed {
  if (verdict?.kind === 'ask') return verdict.once ? { kind: 'ask', reason: verdict.reason, once: true } : { kind: 'ask', reason: verdict.reason };
  return approvalNeed(offered, input, policy, grants);
}

/**
 * The grant an Allow of `scope` keeps beyond its call: none for Allow once, and none for a call asked
 * `once` (a protected file), whatever scope the answer names.
 */
export function keptGrant(need: ApprovalNeed, scope: GrantScope): Exclude<GrantScope, 'once'> | undefined {
  if (scope === 'once' || (need.kind === 'ask' && need.once)) return undefined;
  return scope;
}

/** The tools a chat offers: those whose policy is not `off`. */
export function offeredTools(tools: readonly OfferedTool[], policies: Readonly<Record<string, ToolPolicy>>): OfferedTool[] {
  return tools.filter((t) => policyFor(t, policies) !== 'off');
}
