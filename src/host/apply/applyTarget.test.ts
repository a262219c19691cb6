import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { namedPaths } from './applyPlan';
import { checkApplyTarget, namedTarget } from './applyTarget';

describe('Apply goes through the edit tools\' guard', () => {
  let w: ToolWorkspace;
  beforeEach(async () => {
    w = await makeToolWorkspace();
  });
  afterEach(async () => {
    await w.dispose();
  });

  /** What Apply decides for a block fenced with `info`. */
  async function applyOf(info: string) {
    const abs = namedTarget(w.env.folders(), namedPaths(info, 'x = 1'));
    if (!abs) return undefined;
    return checkApplyTarget(w.env, abs);
  }

  it('refuses a block whose fence names .git/config or .env, saying why', async () => {
    expect(await applyOf('ini .git/config')).toEqual({ refusal: expect.stringContaining('".git/config" is inside a .git folder') });
    expect(await applyOf('sh .env.local')).toEqual({ refusal: expect.stringContaining('".env.local" looks like a secrets file') });
    expect(await applyOf('sh keys/server.pem')).toEqual({ refusal: expect.stringContaining('looks like a secrets file') });
  });

  it('refuses a file reached through a folder that is a link out of the workspace', async () => {
    await fs.mkdir(path.join(w.root, 'elsewhere'));
    await fs.symlink(path.join(w.root, 'elsewhere'), path.join(w.ws, 'linked'));
    expect(await applyOf('ts linked/x.ts')).toEqual({ refusal: expect.stringContaining('leads outside the workspace') });
  });

  it('names a file the workspace\'s rules leave out in the question, and lets an ordinary file through as is', async () => {
    expect(await applyOf('js build/out.js')).toMatchObject({ asks: ['Apply writes "build/out.js" (which is ignored by .gitignore).'] });
    expect(await applyOf('ts src/a.ts')).toMatchObject({ target: { shown: 'src/a.ts' }, asks: [] });
  });

  it('takes a path outside every folder as naming no file of the workspace', () => {
    expect(namedTarget(w.env.folders(), ['../outside.txt', '/etc/passwd'])).toBeUndefined();
  });
});
