import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { checkWriteTarget, writeVerdict } from './writeAccess';

describe('checkWriteTarget', () => {
  let w: ToolWorkspace;
  beforeEach(async () => {
    w = await makeToolWorkspace();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('takes an ordinary workspace file, new or not, without an ask', async () => {
    expect(await checkWriteTarget(w.env, 'src/a.ts')).toEqual({ abs: path.join(w.ws, 'src/a.ts'), real: path.join(w.ws, 'src/a.ts'), shown: 'src/a.ts', outside: false });
    expect((await checkWriteTarget(w.env, 'src/brand/new/file.ts')).askReason).toBeUndefined();
  });

  it('names the folder in a multi-root workspace and applies each folder its own rules', async () => {
    const second = path.join(w.root, 'lib');
    await fs.mkdir(second);
    await fs.writeFile(path.join(second, '.gitignore'), 'gen/\n');
    const env = { ...w.env, folders: () => [w.ws, second] };
    expect(await checkWriteTarget(env, 'lib/gen/x.ts')).toMatchObject({ shown: 'lib/gen/x.ts', askReason: 'writes "lib/gen/x.ts" (which is ignored by .gitignore)' });
    expect((await checkWriteTarget(env, 'lib/src/x.ts')).askReason).toBeUndefined();
  });

  it('judges a link from outside by where it lands, and refuses a link to nothing', async () => {
    await fs.symlink(path.join(w.ws, 'build'), path.join(w.root, 'build-link'));
    const target = await checkWriteTarget(w.env, path.join(w.root, 'build-link', 'out.js'));
    expect(target).toMatchObject({ outside: true, real: path.join(w.ws, 'build/out.js') });
    expect(target.askReason).toBe(`writes ${path.join(w.root, 'build-link', 'out.js')} (a link to build/out.js, which is ignored by .gitignore)`);
    await fs.symlink(path.join(w.ws, '.env'), path.join(w.root, 'env-link'));
    expect(await writeVerdict(w.env, path.join(w.root, 'env-link'))).toMatchObject({ kind: 'deny' });
    await fs.symlink(path.join(w.ws, 'nothing-here'), path.join(w.ws, 'dangling.txt'));
    await expect(checkWriteTarget(w.env, 'dangling.txt')).rejects.toThrow(/symbolic link that leads nowhere/);
  });

  it('refuses .git and secret files however the path spells them, as macOS and Windows would open them', async () => {
    for (const p of ['.GIT/hooks/pre-commit', '.git./hooks/pre-commit', '.git::$INDEX_ALLOCATION/hooks/x', '.Git /config', 'sub/.gIt/config', '.ENV', '.env.', '.env ', '.env::$DATA', 'keys/.SSH/id_ed25519']) {
      const verdict = await writeVerdict(w.env, p);
      expect(verdict?.kind, p).toBe('deny');
      expect(verdict?.reason, p).toMatch(/never write it, even with approval/);
    }
    // Outside the workspace too: no spelling of a .git folder or a secret is written there.
    for (const p of ['../repo/.GIT/config', '../.Env']) expect((await writeVerdict(w.env, p))?.kind, p).toBe('deny');
  });

  it('says what is wrong with a path that names no file, and leaves such calls to fail on their own', async () => {
    await expect(checkWriteTarget(w.env, '.')).rejects.toThrow(/is a workspace folder, not a file/);
    await expect(checkWriteTarget({ ...w.env, folders: () => [] }, 'a.ts')).rejects.toThrow(/No workspace folder is open, so the relative path "a.ts" names no file/);
    expect(await writeVerdict({ ...w.env, folders: () => [] }, 'a.ts')).toBeUndefined();
    expect(await writeVerdict(w.env, 42)).toBeUndefined();
  });
});
