/**
 * Which tool calls run without asking. Built-in read-only tools run on their own while they stay inside
 * the workspace; MCP servers' and other extensions' tools ask. `arbor.tools.approval` sets a policy per
 * tool (`auto`, `ask`, `off`), and a user's "Allow in this conversation / workspace / always" is a grant
 * that later calls of the same tool inherit. A read outside the workspace is granted by folder: the
 * Allow covers the folder of the path the user saw and what is below it, and the home folder's
 * dotfolders and dotfiles (`~/.config/…`, `~/.netrc`) are asked by name every time, never granted. A
 * tool's own verdict comes first: what it asks about is asked whatever was granted, and what it asks
 * `once` about (a protected file) keeps no grant from its Allow. Pure: the grants come in as sets, so
 * the rules are tested without VS Code.
 */
import { homedir } from 'node:os';
import * as path from 'node:path';
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
 * `covers`: what an Allow beyond this call would cover ("reading /tmp/data/"), for the card's buttons.
 */
export type ApprovalNeed = { kind: 'run'; reason: string } | { kind: 'ask'; reason: string; once?: boolean; covers?: string };

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

const OUTSIDE = '@outside:';

/** The folder an Allow of a read of `abs` (outside the workspace) covers, with a trailing separator. */
function outsideFolder(abs: string): string {
  const folder = path.dirname(abs);
  return folder.endsWith(path.sep) ? folder : folder + path.sep;
}

/**
 * Whether `abs` lies in a dotfolder of the user's home folder or is a dotfile there (`~/.config/gh/…`,
 * `~/.ssh/…`, `~/.netrc`): tokens and keys live there, so such a read is asked by name every time.
 * Compared without case, as macOS and Windows open `~/.Config` as `~/.config`.
 */
export function isHomeDotPath(abs: string, home: string = homedir()): boolean {
  const rel = path.relative(home.toLowerCase(), abs.toLowerCase());
  const first = rel.split(/[\\/]/)[0];
  return rel !== '' && first !== '..' && !path.isAbsolute(rel) && first.startsWith('.');
}

/**
 * The key a grant is kept under: the tool's wire name; for a built-in tool's read outside the workspace,
 * `<tool>@outside:<folder>/`, the folder of the path the user saw (see `approvalNeed`).
 */
export function grantKey(offered: OfferedTool, input: Record<string, unknown>): string {
  const outside = offered.outsideWorkspace?.(input);
  return outside !== undefined ? `${offered.tool.name}${OUTSIDE}${outsideFolder(outside)}` : offered.tool.name;
}

/** Which scope's grant of `tool` covers a read of `abs` outside the workspace: one whose folder holds it. */
function outsideGrant(tool: string, abs: string, grants: ToolGrants): string | undefined {
  const prefix = `${tool}${OUTSIDE}`;
  const covers = (set: ReadonlySet<string>) => [...set].some((key) => key.startsWith(prefix) && abs.startsWith(key.slice(prefix.length)));
  if (covers(grants.always)) return 'always allowed';
  if (covers(grants.workspace)) return 'allowed in this workspace';
  if (covers(grants.conversation)) return 'allowed in this conversation';
  return undefined;
}

/** Decides whether a call runs at once or asks; see the file's header. */
export function approvalNeed(offered: OfferedTool, input: Record<string, unknown>, policy: ToolPolicy | undefined, grants: ToolGrants): ApprovalNeed {
  const outside = offered.outsideWorkspace?.(input);
  // Reading outside the workspace is asked about whatever the tool's policy, until its folder is granted.
  if (outside !== undefined) {
    if (isHomeDotPath(outside)) return { kind: 'ask', reason: `reads ${outside}, in your home folder's dotfiles, where keys and tokens live; asked every time`, once: true };
    const folder = outsideFolder(outside);
    if (path.dirname(folder) === folder) return { kind: 'ask', reason: `reads outside the workspace: ${outside}, at the root of the disk; asked every time`, once: true };
    const granted = outsideGrant(offered.tool.name, outside, grants);
    return granted ? { kind: 'run', reason: `${granted} (${folder})` } : { kind: 'ask', reason: `reads outside the workspace: ${outside}`, covers: `reading ${folder}` };
  }
  const key = grantKey(offered, input);
  if (grants.always.has(key)) return { kind: 'run', reason: 'always allowed' };
  if (grants.workspace.has(key)) return { kind: 'run', reason: 'allowed in this workspace' };
  if (grants.conversation.has(key)) return { kind: 'run', reason: 'allowed in this conversation' };
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
