import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSystemPromptLibrary } from '../../../src/core/prompts/fileSystemPromptLibrary';
import type { PromptInfo } from '../../../src/core/prompts/libraryTypes';
import { PromptBuilder } from '../../../src/core/prompts/promptBuilder';
import { newPromptTemplate } from '../../../src/host/prompts/promptTemplate';
import { tempPrompts, type TempPrompts } from './tempPrompts';

const repo = path.resolve(__dirname, '../../..');

/** The words of a description, without short filler words, for comparing two. */
function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z]{4,}/g) ?? []);
}

/** How alike two descriptions are: shared words over all words (Jaccard). */
function likeness(a: string, b: string): number {
  const wa = words(a);
  const wb = words(b);
  const shared = [...wa].filter((w) => wb.has(w)).length;
  return shared / Math.max(1, new Set([...wa, ...wb]).size);
}

/** Markdown that shows as stray characters in the `/` menu and the form (descriptions are plain text there). */
const MARKDOWN = /[`*_[\]#>]|\{\{/;

/**
 * The samples a user sees together: `npm start` and the end-to-end sandbox copy the repository's
 * `prompts/` into `sample-workspace/prompts/` (the workspace's own files win), and New Prompt adds one more.
 */
describe('the sample prompts, as the / menu shows them together', () => {
  let folder: TempPrompts;
  let library: FileSystemPromptLibrary;
  let prompts: PromptInfo[];

  beforeAll(async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const files: Record<string, string> = {};
    for (const root of [path.join(repo, 'prompts'), path.join(repo, 'sample-workspace/prompts')]) {
      for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const full = path.join(entry.parentPath, entry.name);
        files[path.relative(root, full).split(path.sep).join('/')] = await readFile(full, 'utf8');
      }
    }
    files['user/ask-workspace.md'] = newPromptTemplate();
    folder = await tempPrompts(files);
    library = await FileSystemPromptLibrary.open(folder.dir);
    prompts = library.listPrompts().filter((p) => p.kind !== 'partial' && p.kind !== 'rag');
  });
  afterAll(async () => {
    library.dispose();
    await folder.remove();
  });

  it('load without problems, and every one a person picks has a description', () => {
    expect(library.diagnostics()).toEqual([]);
    expect(prompts.map((p) => `${p.kind}/${p.name}`)).toContain('messages/few-shot-naming');
    for (const p of prompts) expect(p.description, `${p.path} has no description`).toBeTruthy();
  });

  it('have no Markdown in their descriptions or their parameters\' descriptions', () => {
    for (const p of prompts) {
      expect(p.description ?? '', p.path).not.toMatch(MARKDOWN);
      for (const param of p.params) expect(param.description ?? '', `${p.path} ${param.name}`).not.toMatch(MARKDOWN);
    }
  });

  it('have no near-duplicates: no two of a kind are described alike', () => {
    for (const a of prompts) {
      for (const b of prompts) {
        if (a.path >= b.path || a.kind !== b.kind) continue;
        expect(likeness(a.description ?? '', b.description ?? ''), `${a.path} ~ ${b.path}: "${a.description}" / "${b.description}"`).toBeLessThan(0.34);
      }
    }
  });

  it('New Prompt\'s sample does not repeat its own name in its description', () => {
    const sample = prompts.find((p) => p.name === 'ask-workspace');
    expect(sample?.description).toBeTruthy();
    expect(sample?.description).not.toMatch(/ask-workspace/);
    // It used to begin "/<name>: …", which the / menu showed beside the name it repeated.
    expect(sample?.description).not.toMatch(/^\//);
  });

  it('the few-shot sample renders its examples as alternating messages that end on an example answer', async () => {
    const builder = new PromptBuilder(library);
    const rendered = await builder.renderMessagesPrompt('few-shot-naming', { params: { language: 'go' } });
    expect(rendered.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(rendered.messages[0].content).toContain('clear go names');
    expect(rendered.paramsMissing).toEqual([]);
  });
});
