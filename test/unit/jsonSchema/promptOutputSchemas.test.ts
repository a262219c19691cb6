/**
 * A prompt's `output:` schema (inline, or a `.schema.json` file of the prompts folder) that Arbor will not
 * compile is a diagnostic at that prompt's `output:` line; the rest of the library loads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FileSystemPromptLibrary } from '../../../src/core/prompts/fileSystemPromptLibrary';
import { tempPrompts, type TempPrompts } from '../prompts/tempPrompts';

let folder: TempPrompts | undefined;
afterEach(async () => {
  await folder?.remove();
  folder = undefined;
});

describe("a prompt's output schema from the prompts folder", () => {
  it('with a backreference pattern, or too large, is a diagnostic at `output:`; the other prompts load', async () => {
    const huge = { type: 'object', properties: Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    folder = await tempPrompts({
      'user/pattern.md': '---\ndescription: d\noutput:\n  type: object\n  properties:\n    id: {type: string, pattern: "^(a)\\\\1$"}\n---\nGive an id',
      'user/huge.md': '---\noutput: huge.schema.json\n---\nFill it',
      'user/huge.schema.json': JSON.stringify(huge),
      'user/fine.md': '---\noutput: {type: object, properties: {id: {type: string, pattern: "^[a-z]+$"}}}\n---\nFine',
    });
    const library = await FileSystemPromptLibrary.open(folder.dir);
    try {
      const problems = library.diagnostics();
      expect(problems.find((d) => d.file === 'user/pattern.md')).toMatchObject({ line: 4, severity: 'error', message: expect.stringMatching(/^The output schema is refused: pattern "\^\(a\)\\\\1\$" uses a backreference/) });
      expect(problems.find((d) => d.file === 'user/huge.md')).toMatchObject({ line: 2, severity: 'error', message: expect.stringMatching(/^The output schema in "user\/huge\.schema\.json" is refused: the schema has more than 10,000 parts/) });
      expect(problems.filter((d) => d.file === 'user/fine.md')).toEqual([]);
      expect(library.getUserPrompt('fine')?.output?.schema).toEqual({ type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } } });
    } finally {
      library.dispose();
    }
  });
});
