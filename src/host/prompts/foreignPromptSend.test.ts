import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, FileSystemPromptLibrary, gitBlobId, loadForeignPrompts, PromptBuilder, SqlJsConversationStorage, type LLMProvider } from '../../core/index';
import { foreignPromptSummaries, reservedPromptNames, withForeignVersions } from './foreignPromptSend';
import { promptMessageInfo, promptVersionLookup } from '../conversations/promptMessages';
import { addPromptMessages, type PromptSendContext } from './promptSend';

const llm = { name: 'none' } as unknown as LLMProvider;

let dir: string;
let storage: SqlJsConversationStorage;
let library: FileSystemPromptLibrary;
let manager: ConversationManager;
let context: PromptSendContext;

const EXPLAIN = `---
description: Explain with the selection
model: small-model
tools: [codebase]
---
Explain \${input:topic:what to explain} using \${selection} from \${fileBasename}. See #file:src/a.ts.
`;

async function write(rel: string, content: string): Promise<void> {
  const abs = path.join(dir, rel);
  await fs.mkdir(path.dirname(abs), { recursive: true });
  await fs.writeFile(abs, content);
}

/** A workspace in a temp folder with a prompts/ library and other tools' prompt files, and a real store. */
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-foreign-send-'));
  await write('prompts/user/review.md', 'Arbor review {{input}}');
  await write('.github/prompts/explain.prompt.md', EXPLAIN);
  await write('.github/prompts/review.prompt.md', 'Copilot review');
  await write('.continue/prompts/sys.prompt', '---\nname: sys\n---\n<system>Be terse.</system>\nAnswer {{{ input }}}\n');
  await write('src/a.ts', 'export const a = 1;\n');
  library = await FileSystemPromptLibrary.open(path.join(dir, 'prompts'), { watch: false });
  const builder = new PromptBuilder(library);
  storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.sqlite'));
  manager = await ConversationManager.create({ llm, storage, promptBuilder: builder });
  const read = (rel: string) => fs.readFile(path.join(dir, rel), 'utf8');
  context = {
    trusted: true,
    editorValues: () => ({ selection: '', file: '', language: '' }),
    promptLibrary: async () => library,
    promptBuilder: async () => builder,
    foreign: {
      list: (reserved) => loadForeignPrompts(dir, { reservedNames: reserved }),
      editor: () => ({ selection: 'let x = 2;', filePath: path.join(dir, 'src/b.ts'), workspaceFolder: dir }),
      activeFile: () => undefined,
      resolveAttachments: async (attachments) => Promise.all(attachments.map(async (a) => ({ ...a, text: await read(a.path) }))),
      readText: read,
    },
  };
});
afterEach(async () => {
  await storage.close();
  library.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('sending another tool\'s prompt', () => {
  it('renders a Copilot prompt with its field, the selection and the #file attachment, records its version and returns its model and tools', async () => {
    const overrides = await addPromptMessages(context, manager, { promptName: 'explain', kind: 'user', text: '', params: { topic: 'closures' }, attachments: [] });
    expect(overrides).toEqual({ model: 'small-model', tools: ['codebase'] });
    const node = manager.getNode(manager.currentNodeId);
    expect(node.message.content).toContain('Explain closures using let x = 2; from b.ts. See #file:src/a.ts.');
    expect(node.message.content).toContain('export const a = 1;');
    const blob = gitBlobId(await fs.readFile(path.join(dir, '.github/prompts/explain.prompt.md')));
    expect(node.metadata).toMatchObject({
      displayText: '/explain',
      promptParams: { topic: 'closures' },
      prompt: { name: 'explain', path: '.github/prompts/explain.prompt.md', gitBlobId: blob },
      attachments: [{ kind: 'file', path: 'src/a.ts' }],
      promptSettings: { model: 'small-model' },
    });
    expect(manager.getMetadata('title')).toBe('closures');

    // The chip: current now, "changed" once the file is edited, "missing" once it is gone.
    const versions = async () => withForeignVersions(promptVersionLookup(library), await loadForeignPrompts(dir, { reservedNames: reservedPromptNames(library.listPrompts()) }));
    expect(promptMessageInfo(node, await versions())).toMatchObject({ kind: 'user', status: 'current', path: '.github/prompts/explain.prompt.md', params: { topic: 'closures' } });
    await write('.github/prompts/explain.prompt.md', `${EXPLAIN}\nMore.\n`);
    expect(promptMessageInfo(node, await versions())?.status).toBe('changed');
    await fs.rm(path.join(dir, '.github/prompts/explain.prompt.md'));
    expect(promptMessageInfo(node, await versions())?.status).toBe('missing');
  });

  it('leaves a name the library has to the library, and offers the other tool\'s file as source:name', async () => {
    expect(await addPromptMessages(context, manager, { promptName: 'review', kind: 'user', text: 'now', params: {}, attachments: [] })).toBeUndefined();
    expect(manager.getNode(manager.currentNodeId).message.content).toBe('Arbor review now');
    await manager.branchFrom(manager.currentNodeId);
    await addPromptMessages(context, manager, { promptName: 'copilot:review', kind: 'user', text: 'now', params: {}, attachments: [] });
    expect(manager.getNode(manager.currentNodeId).message.content).toBe('Copilot review\n\nnow');
    const set = await loadForeignPrompts(dir, { reservedNames: reservedPromptNames(library.listPrompts()) });
    expect(foreignPromptSummaries(set.prompts).map((p) => [p.name, p.source])).toEqual([
      ['explain', 'Copilot'],
      ['copilot:review', 'Copilot'],
      ['sys', 'Continue'],
    ]);
    expect(foreignPromptSummaries(set.prompts)[0].params).toEqual([{ name: 'topic', required: true, description: 'what to explain' }]);
  });

  it('returns a Continue <system> block for the request, and refuses a missing field or an unreadable reference without adding a message', async () => {
    expect(await addPromptMessages(context, manager, { promptName: 'sys', kind: 'user', text: 'why?', params: {}, attachments: [] })).toEqual({ system: 'Be terse.' });
    expect(manager.getNode(manager.currentNodeId).message.content).toBe('Answer why?');
    const before = manager.getPathIds().length;
    await expect(addPromptMessages(context, manager, { promptName: 'explain', kind: 'user', text: '', params: {}, attachments: [] })).rejects.toThrow('Fill "topic" in the form of /explain');
    await fs.rm(path.join(dir, 'src/a.ts'));
    await expect(addPromptMessages(context, manager, { promptName: 'explain', kind: 'user', text: '', params: { topic: 't' }, attachments: [] })).rejects.toThrow(
      /\/explain refers to #file:src\/a\.ts \(src\/a\.ts\), which Arbor cannot read: .*Fix the reference in \.github\/prompts\/explain\.prompt\.md/,
    );
    expect(manager.getPathIds()).toHaveLength(before);
  });
});
