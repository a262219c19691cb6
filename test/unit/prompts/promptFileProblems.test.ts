import { afterEach, describe, expect, it } from 'vitest';
import { runPromptsCli } from '../../../src/core/promptFolder/cli';
import { usePromptFolders } from './promptFolders';
import { tempPrompts, type TempPrompts } from './tempPrompts';

const open = usePromptFolders();

describe('prompt folders: malformed files are diagnostics', () => {
  it('reports invalid UTF-8 at its line', async () => {
    const folder = await tempPrompts();
    try {
      await folder.write('user/bad.md', Buffer.concat([Buffer.from('line one\nline two '), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]));
      const out: string[] = [];
      expect(await runPromptsCli(['check', folder.dir], { out: (l) => out.push(l), err: (l) => out.push(l) })).toBe(1);
      expect(out).toContainEqual(expect.stringMatching(/user\/bad\.md:2:\d+: error: .*not valid UTF-8/));
    } finally {
      await folder.remove();
    }
  });

  it('reports front matter that is a list or a scalar, and unknown YAML tags', async () => {
    const { library } = await open({
      'user/list.md': '---\n- a\n- b\n---\nbody',
      'user/scalar.md': '---\njust words\n---\nbody',
      'user/js.md': '---\ndescription: !!js/function "function () { return 1 }"\n---\nbody',
      'user/custom.yaml': 'template: !foo "x"\n',
    });
    const byFile = (f: string) => library.diagnostics().find((x) => x.file === f);
    expect(byFile('user/list.md')?.message).toMatch(/mapping/);
    expect(byFile('user/scalar.md')?.message).toMatch(/mapping/);
    expect(byFile('user/js.md')).toMatchObject({ line: 2, severity: 'error' });
    expect(byFile('user/js.md')!.message).toMatch(/tag/);
    expect(byFile('user/custom.yaml')).toMatchObject({ line: 1, severity: 'error' });
    expect(library.getUserPrompt('js')).toBeUndefined();
  });
});

describe('arbor-prompts check output', () => {
  let folder: TempPrompts | undefined;
  afterEach(async () => {
    await folder?.remove();
    folder = undefined;
  });

  it('escapes control characters in file names, so a name cannot forge a line', async () => {
    folder = await tempPrompts({ 'user/x.md': 'x' });
    const forged = 'evil.txt\nforged.md:1:1: error: \x1b[2Jforged';
    await folder.write(`user/${forged}`, 'not a prompt');
    const out: string[] = [];
    await runPromptsCli(['check', folder.dir], { out: (l) => out.push(l), err: (l) => out.push(l) });
    const lines = out.flatMap((l) => l.split('\n'));
    expect(lines.some((l) => l.startsWith('forged.md'))).toBe(false);
    expect(lines.join('\n')).not.toContain('\x1b');
    expect(out).toContainEqual(expect.stringContaining('evil.txt\\nforged.md:1:1: error: \\x1b[2Jforged'));
  });
});
