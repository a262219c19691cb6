import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, runTool, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import type { CommandResult } from './commandOutput';
import { runInProcess, type CommandRequest } from './processRunner';
import { runCommandTool, type CommandToolEnv } from './runCommandTool';

describe('run_command', () => {
  let w: ToolWorkspace;
  let lists: { allow: string[]; deny: string[] };
  let requests: CommandRequest[];
  let runs: Array<Promise<CommandResult>>;
  let env: CommandToolEnv;
  beforeEach(async () => {
    w = await makeToolWorkspace();
    lists = { allow: [], deny: [] };
    requests = [];
    runs = [];
    env = {
      folders: w.env.folders,
      files: w.env.files,
      commandLists: () => lists,
      runner: (request) => {
        requests.push(request);
        const ran = runInProcess(request, { killGraceMs: 100 });
        runs.push(ran);
        return ran;
      },
    };
  });
  afterEach(async () => {
    await w.dispose();
  });

  const run = (input: Record<string, unknown>, signal?: AbortSignal) => runTool(runCommandTool(env), input, signal);

  it('runs the command in the workspace folder or a folder of it, and returns its output and exit code', async () => {
    const out = await run({ command: 'ls src; echo oops >&2; exit 2' });
    expect(out.status).toBe('done');
    expect(out.content).toBe('$ ls src; echo oops >&2; exit 2\n(in the workspace folder; exit code 2)\na.ts\nnotes.md\nsub\noops');
    expect(out.metadata).toEqual({ command: { cwd: w.ws, exitCode: 2, ended: 'exited', via: 'process', omittedChars: 0 } });
    const sub = await run({ command: 'pwd', cwd: 'src/sub' });
    expect(sub.content).toBe(`$ pwd\n(in src/sub; exit code 0)\n${path.join(w.ws, 'src/sub')}`);
    expect(requests.map((r) => r.timeoutMs)).toEqual([300_000, 300_000]);
  });

  it('says what is wrong with a cwd that is not a folder', async () => {
    expect((await run({ command: 'pwd', cwd: 'nowhere' })).content).toMatch(/No folder "nowhere": give cwd as an existing folder/);
    expect((await run({ command: 'pwd', cwd: 'src/a.ts' })).content).toMatch(/"src\/a.ts" is a file, not a folder/);
    expect(requests).toHaveLength(0);
  });

  it('refuses a deny-listed command when it runs, and asks for anything not allowed, naming why', async () => {
    lists.deny = ['rm'];
    lists.allow = ['ls'];
    const offered = runCommandTool(env);
    expect(await offered.checkCall!({ command: 'ls -la' })).toEqual({ kind: 'run', reason: '"ls" is on arbor.tools.commandAllowList' });
    expect(await offered.checkCall!({ command: 'ls && rm -rf src' })).toMatchObject({ kind: 'deny' });
    expect(await offered.checkCall!({ command: 'npm test' })).toEqual({ kind: 'ask', reason: 'not on arbor.tools.commandAllowList' });
    expect(offered.outsideWorkspace!({ command: 'ls', cwd: '..' })).toBe(w.root);
    expect(await offered.checkCall!({ command: 'ls', cwd: '..' })).toEqual({ kind: 'ask', reason: `runs outside the workspace, in ${w.root}` });

    const denied = await run({ command: 'ls && rm -rf src' });
    expect(denied.status).toBe('failed');
    expect(denied.content).toMatch(/"rm" is on arbor.tools.commandDenyList, so Arbor does not run "rm -rf src"/);
    expect(requests).toHaveLength(0);
    expect(await fs.stat(path.join(w.ws, 'src'))).toBeDefined();
  });

  it('judges cwd by where it leads: a link inside the workspace to a folder outside asks as ../ does', async () => {
    lists.allow = ['pwd', 'ls'];
    await fs.mkdir(path.join(w.root, 'elsewhere'));
    await fs.symlink(path.join(w.root, 'elsewhere'), path.join(w.ws, 'out'));
    await fs.symlink(path.join(w.ws, 'src'), path.join(w.ws, 'src-link'));
    await fs.symlink(path.join(w.root, 'missing'), path.join(w.ws, 'dangling'));
    await fs.symlink(path.join(w.ws, 'loop-b'), path.join(w.ws, 'loop-a'));
    await fs.symlink(path.join(w.ws, 'loop-a'), path.join(w.ws, 'loop-b'));
    const offered = runCommandTool(env);
    const outside = path.join(w.root, 'elsewhere');
    expect(await offered.checkCall!({ command: 'pwd', cwd: 'out' })).toEqual({ kind: 'ask', reason: `runs outside the workspace, in ${outside} (where "out" leads)` });
    expect(await offered.checkCall!({ command: 'pwd', cwd: 'out/' })).toMatchObject({ kind: 'ask' });
    expect(await offered.checkCall!({ command: 'pwd', cwd: path.join(w.ws, 'out') })).toMatchObject({ kind: 'ask' });
    // A link that stays inside is an ordinary workspace folder.
    expect(await offered.checkCall!({ command: 'pwd', cwd: 'src-link' })).toEqual({ kind: 'run', reason: '"pwd" is on arbor.tools.commandAllowList' });
    // A link to nothing or a loop asks, naming it, and fails with a clear message if approved.
    expect(await offered.checkCall!({ command: 'pwd', cwd: 'dangling' })).toEqual({ kind: 'ask', reason: 'its folder "dangling" is a symbolic link that leads nowhere' });
    expect(await offered.checkCall!({ command: 'pwd', cwd: 'loop-a' })).toEqual({ kind: 'ask', reason: 'its folder "loop-a" is a symbolic link loop' });
    expect((await run({ command: 'pwd', cwd: 'dangling' })).content).toMatch(/"dangling" is a symbolic link that leads nowhere/);
    expect((await run({ command: 'pwd', cwd: 'loop-a' })).content).toMatch(/symbolic link loop/);
    expect(requests).toHaveLength(0);
    // Approved, it runs where the link leads, and says so.
    const ran = await run({ command: 'pwd', cwd: 'out' });
    expect(ran.content).toBe(`$ pwd\n(in ${outside}; exit code 0)\n${outside}`);
  });

  it('stops the command on Stop and at its time limit', async () => {
    const controller = new AbortController();
    const pending = run({ command: 'echo started; sleep 300' }, controller.signal);
    while (requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect((await pending).status).toBe('cancelled');
    // The model is told at once; the command itself is ended too.
    expect(await runs[0]).toMatchObject({ ended: 'aborted', exitCode: undefined });

    const slow = await run({ command: 'echo started; sleep 300', timeoutSeconds: 1 });
    expect(slow.status).toBe('done');
    expect(slow.content).toMatch(/^\$ echo started; sleep 300\n\(in the workspace folder; stopped after 1 seconds \(the call's time limit\)\)\nstarted\n\[The command did not finish/);
  });
});
