import { homedir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../core/index';
import type { OfferedTool } from './offeredTool';
import { approvalNeed, callNeed, grantKey, keptGrant, offeredTools, policyFor, type ToolGrants } from './toolApprovals';

function offered(name: string, source: OfferedTool['source'], readOnly: boolean, extra: Partial<OfferedTool> = {}): OfferedTool {
  const tool = defineTool({ name, description: `${name} tool`, inputSchema: { type: 'object' }, readOnly, run: () => 'ok' });
  return { tool, source, displayName: extra.displayName ?? name, ...extra };
}

const none: ToolGrants = { conversation: new Set(), workspace: new Set(), always: new Set() };
const readFile = offered('read_file', 'builtin', true, {
  outsideWorkspace: (input) => (typeof input.path === 'string' && input.path.startsWith('../') ? `/elsewhere/${input.path.slice(3)}` : undefined),
});
const echo = offered('everything__echo', 'mcp', false, { displayName: 'everything › echo', server: 'everything' });
const ext = offered('ext_tool', 'extension', false);

describe('approvalNeed', () => {
  it('runs built-in read-only tools inside the workspace, asks for MCP and extension tools', () => {
    expect(approvalNeed(readFile, { path: 'src/a.ts' }, undefined, none).kind).toBe('run');
    expect(approvalNeed(echo, { message: 'hi' }, undefined, none)).toEqual({ kind: 'ask', reason: 'a tool of the MCP server "everything"' });
    expect(approvalNeed(ext, {}, undefined, none).kind).toBe('ask');
  });

  it('asks before a built-in tool reads outside the workspace, even with policy auto, until that is granted', () => {
    expect(approvalNeed(readFile, { path: '../secret.txt' }, 'auto', none)).toEqual({ kind: 'ask', reason: 'reads outside the workspace: /elsewhere/secret.txt', covers: 'reading /elsewhere/' });
    expect(grantKey(readFile, { path: '../x' })).toBe('read_file@outside:/elsewhere/');
    const granted = { ...none, conversation: new Set([grantKey(readFile, { path: '../x' })]) };
    expect(approvalNeed(readFile, { path: '../secret.txt' }, undefined, granted).kind).toBe('run');
    // A grant of the tool inside the workspace does not reach outside it.
    expect(approvalNeed(readFile, { path: '../x' }, undefined, { ...none, always: new Set(['read_file']) }).kind).toBe('ask');
  });

  it('follows arbor.tools.approval and any grant scope', () => {
    expect(approvalNeed(echo, {}, 'auto', none).kind).toBe('run');
    expect(approvalNeed(readFile, { path: 'a' }, 'ask', none).kind).toBe('ask');
    for (const scope of ['conversation', 'workspace', 'always'] as const) {
      expect(approvalNeed(echo, {}, 'ask', { ...none, [scope]: new Set(['everything__echo']) }).kind).toBe('run');
    }
  });
});

describe('callNeed and keptGrant', () => {
  const edit = offered('edit_file', 'builtin', false);
  const everywhere: ToolGrants = { conversation: new Set(['edit_file']), workspace: new Set(['edit_file']), always: new Set(['edit_file']) };

  it('asks what the tool asks about whatever was granted or set, and keeps its once', () => {
    const protectedFile = { kind: 'ask' as const, reason: 'writes ".vscode/settings.json", which is protected', once: true };
    expect(callNeed(edit, {}, protectedFile, 'auto', everywhere)).toEqual(protectedFile);
    expect(callNeed(edit, {}, { kind: 'ask', reason: 'writes outside the workspace: /x' }, 'auto', everywhere)).toEqual({ kind: 'ask', reason: 'writes outside the workspace: /x' });
    // No verdict: the grants decide.
    expect(callNeed(edit, {}, undefined, undefined, everywhere).kind).toBe('run');
  });

  it('keeps no grant from an Allow once, nor from any Allow of a call asked once', () => {
    const once = { kind: 'ask' as const, reason: 'protected', once: true };
    const ask = { kind: 'ask' as const, reason: 'it may change things' };
    for (const scope of ['once', 'conversation', 'workspace', 'always'] as const) expect(keptGrant(once, scope), scope).toBeUndefined();
    expect(keptGrant(ask, 'once')).toBeUndefined();
    expect(keptGrant(ask, 'workspace')).toBe('workspace');
  });
});

describe('policyFor and offeredTools', () => {
  it('matches the wire name or the display name, else the longest prefix ending in *', () => {
    expect(policyFor(echo, { 'everything › echo': 'auto' })).toBe('auto');
    expect(policyFor(echo, { everything__echo: 'off', 'everything › *': 'auto' })).toBe('off');
    expect(policyFor(echo, { '*': 'ask', 'everything › *': 'auto' })).toBe('auto');
    expect(policyFor(readFile, { 'everything › *': 'auto' })).toBeUndefined();
  });

  it('leaves out the tools set to off', () => {
    expect(offeredTools([readFile, echo, ext], { 'everything › *': 'off', ext_tool: 'ask' }).map((t) => t.tool.name)).toEqual(['read_file', 'ext_tool']);
  });
});

describe('reads outside the workspace', () => {
  // read_file as the built-in tool names an outside path: absolute, resolved.
  const reader = offered('read_file', 'builtin', true, { outsideWorkspace: (input) => (typeof input.path === 'string' && path.isAbsolute(input.path) ? path.resolve(input.path) : undefined) });
  const home = homedir();
  const allowed = (p: string, grants: ToolGrants) => approvalNeed(reader, { path: p }, undefined, grants).kind;
  const grantFor = (p: string, scope: keyof ToolGrants = 'conversation'): ToolGrants => ({ ...none, [scope]: new Set([grantKey(reader, { path: p })]) });

  it('an Allow covers the folder of the path the user saw and what is below it, nothing above or beside it', () => {
    for (const scope of ['conversation', 'workspace', 'always'] as const) {
      const grants = grantFor('/tmp/data/a.csv', scope);
      expect(allowed('/tmp/data/b.csv', grants)).toBe('run');
      expect(allowed('/tmp/data/2024/c.csv', grants)).toBe('run');
      expect(allowed('/tmp/other.csv', grants)).toBe('ask');
      expect(allowed('/tmp/database/x.csv', grants)).toBe('ask');
      expect(allowed('/tmp/data/../secrets.txt', grants)).toBe('ask');
      expect(allowed('/etc/passwd', grants)).toBe('ask');
    }
  });

  it('one Allow of a file in a plain folder of the home folder does not cover ~/.config/gh/hosts.yml', () => {
    expect(allowed(path.join(home, '.config/gh/hosts.yml'), grantFor(path.join(home, 'notes/a.txt')))).toBe('ask');
    // A blanket grant as the release before stored it ("read_file@outside") covers nothing any more.
    expect(allowed('/tmp/data/a.csv', { ...none, always: new Set(['read_file@outside']) })).toBe('ask');
  });

  it('asks by name every time for the home folder\'s dotfolders and dotfiles, whatever was granted, and keeps no grant', () => {
    for (const p of ['.config/gh/hosts.yml', '.kube/config', '.bashrc', '.docker/config.json', '.local/share/keyrings/login.keyring']) {
      const abs = path.join(home, p);
      const everything: ToolGrants = { conversation: new Set([grantKey(reader, { path: abs })]), workspace: new Set([grantKey(reader, { path: path.join(home, 'x') })]), always: new Set(['read_file@outside']) };
      const need = approvalNeed(reader, { path: abs }, 'auto', everything);
      expect(need).toMatchObject({ kind: 'ask', once: true });
      expect(need.reason).toContain(abs);
    }
  });

  it('says on the card what an Allow covers', () => {
    expect(approvalNeed(reader, { path: '/tmp/data/a.csv' }, undefined, none)).toEqual({ kind: 'ask', reason: 'reads outside the workspace: /tmp/data/a.csv', covers: 'reading /tmp/data/' });
  });

  it('keeps no grant for a file at the root of the disk, which would cover every folder', () => {
    expect(approvalNeed(reader, { path: '/notes.txt' }, undefined, none)).toMatchObject({ kind: 'ask', once: true });
  });
});
