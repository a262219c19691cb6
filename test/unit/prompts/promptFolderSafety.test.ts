import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PromptError } from '../../../src/core/errors';
import { usePromptFolders } from './promptFolders';

const open = usePromptFolders();
const outsides: string[] = [];
afterEach(async () => {
  for (const dir of outsides.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

/** A folder outside any prompts folder, holding `secret.md`. */
async function outsideFolder(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-outside-'));
  outsides.push(dir);
  await fs.writeFile(path.join(dir, 'secret.md'), 'SECRET {{x}}');
  return dir;
}

describe('prompt folders: symbolic links', () => {
  it('does not read prompts through a prompts/user symlink that leads outside, and says so on each entry', async () => {
    const outside = await outsideFolder();
    const { folder, library, builder } = await open({ 'system/fine.md': 'fine' });
    await fs.symlink(outside, path.join(folder.dir, 'user'), 'dir');
    await library.reload();
    expect(library.getUserPrompt('secret')).toBeUndefined();
    const d = library.diagnostics().find((x) => x.file === 'user/secret.md');
    expect(d).toMatchObject({ line: 1, column: 1, severity: 'error' });
    expect(d!.message).toMatch(/outside the prompts folder/);
    await expect(builder.renderUserPrompt('secret')).rejects.toBeInstanceOf(PromptError);
    expect((await builder.renderSystemPrompt('fine')).content).toBe('fine');
  });

  it('refuses a partial linked to a file outside, and follows a link that stays inside', async () => {
    const outside = await outsideFolder();
    const { folder, library, builder } = await open({ 'user/a.md': 'A {{> leak}}', 'user/b.md': 'B {{> inner}}', 'system/real.md': 'inside' });
    await fs.mkdir(path.join(folder.dir, 'partials'));
    await fs.symlink(path.join(outside, 'secret.md'), path.join(folder.dir, 'partials/leak.md'));
    await fs.symlink(path.join(folder.dir, 'system/real.md'), path.join(folder.dir, 'partials/inner.md'));
    await library.reload();
    expect(library.diagnostics().find((x) => x.file === 'partials/leak.md')?.message).toMatch(/outside the prompts folder/);
    await expect(builder.renderUserPrompt('a')).rejects.toThrow(/partial "leak" was not found/);
    expect((await builder.renderUserPrompt('b')).content).toBe('B inside');
  });
});
