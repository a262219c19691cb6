import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/core/errors';
import { parseContinueConfigText } from '../../../src/core/conversation/imports/continueConfig';
import { parseInstructionFile } from '../../../src/core/instructions/instructionFile';
import { runPromptsCli } from '../../../src/core/promptFolder/cli';
import { PromptFolderLibrary } from '../../../src/core/promptFolder/promptFolderLibrary';
import { tempPrompts, type TempPrompts } from './tempPrompts';

/** "Billion laughs": nine levels of nine aliases, 9^9 strings once expanded, from a 600-byte text. */
const BOMB_LINES = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((c, i) => {
    const prev = 'abcdefghi'[i];
    return `${c}: &${c} [${Array(9).fill(`*${prev}`).join(',')}]`;
  }),
];
const BOMB = `${BOMB_LINES.join('\n')}\n`;

const FLOW = `start: done
states:
  done:
    type: finish
    template: "Done."
`;

let folder: TempPrompts | undefined;
afterEach(async () => {
  await folder?.remove();
  folder = undefined;
});

describe('YAML alias bombs in the prompt library', () => {
  it('are a diagnostic on each bad file (front matter, a .yaml prompt, a flow) while every other prompt and flow loads', async () => {
    folder = await tempPrompts({
      'user/good.md': '---\ndescription: fine\n---\nHello {{name}}',
      'user/bomb.md': `---\n${BOMB}---\nBoom`,
      'user/bomb2.yaml': `template: x\n${BOMB}`,
      'flows/good.yaml': FLOW,
      'flows/bomb.yaml': `${FLOW}${BOMB}`,
    });
    const library = await PromptFolderLibrary.open(folder.dir);
    try {
      expect(library.listPrompts().map((p) => p.name)).toEqual(['good']);
      expect(library.listFlows().map((f) => f.name)).toEqual(['good']);
      const problems = library.diagnostics();
      for (const file of ['user/bomb.md', 'user/bomb2.yaml', 'flows/bomb.yaml']) {
        const d = problems.find((x) => x.file === file);
        expect(d, file).toMatchObject({ severity: 'error' });
        expect(d!.message).toMatch(/^YAML: .*aliases/);
      }
      // The front matter starts on the file's second line, so its first alias is on line 3.
      expect(problems.find((x) => x.file === 'user/bomb.md')?.line).toBe(3);
      expect(problems.filter((x) => x.file.includes('good'))).toEqual([]);
    } finally {
      library.dispose();
    }
  });

  it('keep aliases a real file uses (a few shared defaults)', async () => {
    folder = await tempPrompts({
      'user/shared.yaml': 'template: "{{a}} {{b}}"\nbase: &base {x: 1}\ndefaults:\n  a: &v hello\n  b: *v\nmetadata: {one: *base, two: *base}\n',
    });
    const library = await PromptFolderLibrary.open(folder.dir);
    try {
      expect(library.diagnostics()).toEqual([]);
      expect(library.listPrompts().map((p) => p.name)).toEqual(['shared']);
    } finally {
      library.dispose();
    }
  });

  it('make `arbor-prompts check` report the file and exit 1 instead of crashing', async () => {
    folder = await tempPrompts({ 'user/good.md': 'Hi', 'flows/bomb.yaml': `${FLOW}${BOMB}` });
    const out: string[] = [];
    const err: string[] = [];
    const code = await runPromptsCli(['check', folder.dir], { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(code).toBe(1);
    expect(out.filter((l) => l.includes('bomb.yaml'))).toEqual([expect.stringMatching(/flows\/bomb\.yaml:7:8: error: YAML: .*aliases/)]);
    expect(err).toEqual([expect.stringMatching(/1 prompt checked in .*, 1 error, 0 warnings$/)]);
  });
});

describe('YAML alias bombs elsewhere', () => {
  it('an instruction file with a bomb in its front matter is a problem on that file', () => {
    const file = parseInstructionFile('copilotInstructions', '.github/instructions/x.instructions.md', new TextEncoder().encode(`---\n${BOMB}---\nBody`));
    expect(file.problem).toMatch(/x\.instructions\.md: the front matter is not valid YAML/);
    expect(file.body).toBe('Body');
  });

  it("a Continue config.yaml with a bomb is a readable error, not a hang", () => {
    expect(() => parseContinueConfigText(`models: []\n${BOMB}`, 'config.yaml')).toThrow(InvalidArgumentError);
    expect(() => parseContinueConfigText(`models: []\n${BOMB}`, 'config.yaml')).toThrow(/config\.yaml is not valid YAML/);
  });
});
