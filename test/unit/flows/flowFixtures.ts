/**
 * What the flow tests share: a prompts folder in a temp dir (with the flows a test writes), the real
 * library and builder over it, a sql.js store in a file, and the fake model server over real HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import type { FlowDefinition, FlowEvent } from '../../../src/core/flows/flowTypes';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMProvider } from '../../../src/core/llm/provider';
import { PromptFolderLibrary } from '../../../src/core/promptFolder/promptFolderLibrary';
import { PromptBuilder } from '../../../src/core/prompts/promptBuilder';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { defineTool } from '../../../src/core/tools/tool';
import type { FakeLlmServer } from '../../fixtures/fakeLlmServer';
import { tempPrompts, type TempPrompts } from '../prompts/tempPrompts';

export const PROMPTS: Record<string, string> = {
  'system/reviewer.md': '---\nparams:\n  target: {required: true}\n---\nYou review {{target}} strictly.',
  'user/review.md': '---\nparams:\n  target: {required: true}\n---\nReview {{target}}.{{#if fixNotes}} Fixed since: {{fixNotes}}{{/if}}',
};

/** review → fix (with edit_file) → review, at most `limit` fixes, then a summary. */
export const REVIEW_FIX = `name: review-fix
inputs:
  target: {required: true}
memory: {round: 0}
start: review
states:
  review:
    type: agent
    system: reviewer
    user: review
    output:
      type: object
      properties:
        verdict: {type: string, enum: [ok, changes_needed]}
        issues: {type: array, items: {type: string}}
      required: [verdict, issues]
    next:
      - when: "verdict == 'changes_needed' && round < 3"
        to: fix
      - to: summary
  fix:
    type: agent
    userTemplate: "Fix these: {{#each issues}}{{this}}; {{/each}}"
    tools: [edit_file]
    result: fixNotes
    set: {round: "round + 1"}
    next: review
  summary:
    type: finish
    template: "{{target}}: {{verdict}} after {{round}} fix(es). {{fixNotes}}"
`;

export const verdict = (v: 'ok' | 'changes_needed', issues: string[] = []) => ({ content: JSON.stringify({ verdict: v, issues }) });

/** A test's world: folder, library, builder, store file, and a manager on it. */
export interface FlowWorld {
  prompts: TempPrompts;
  library: PromptFolderLibrary;
  builder: PromptBuilder;
  dbPath: string;
  storage: SqlJsConversationStorage;
  llm: LLMProvider;
  manager: ConversationManager;
  flow(name: string): FlowDefinition;
  /** Opens the store file again in a fresh manager (what a restarted window does). */
  reopen(): Promise<ConversationManager>;
  dispose(): Promise<void>;
}

export function provider(server: FakeLlmServer, api: 'openai' | 'ollama' = 'openai'): LLMProvider {
  return api === 'openai'
    ? new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', maxRetries: 0 })
    : new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
}

export async function flowWorld(server: FakeLlmServer, flows: Record<string, string>, api: 'openai' | 'ollama' = 'openai'): Promise<FlowWorld> {
  const files: Record<string, string> = { ...PROMPTS };
  for (const [name, text] of Object.entries(flows)) files[`flows/${name}.yaml`] = text;
  const prompts = await tempPrompts(files);
  const library = await PromptFolderLibrary.open(prompts.dir);
  const problems = library.diagnostics().filter((d) => d.severity === 'error');
  if (problems.length) throw new Error(`test flows do not load: ${JSON.stringify(problems)}`);
  const builder = new PromptBuilder(library);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-flows-'));
  const dbPath = path.join(dir, 'store.db');
  let storage = await SqlJsConversationStorage.open(dbPath, { lockStaleMs: 2000 });
  const llm = provider(server, api);
  const manager = await ConversationManager.create({ llm, storage, promptBuilder: builder, systemPrompt: 'You are in a test.' });
  const world: FlowWorld = {
    prompts,
    library,
    builder,
    dbPath,
    storage,
    llm,
    manager,
    flow: (name) => {
      const f = library.getFlow(name);
      if (!f) throw new Error(`no flow ${name}`);
      return f;
    },
    reopen: async () => {
      await storage.close();
      storage = await SqlJsConversationStorage.open(dbPath, { lockStaleMs: 2000 });
      world.storage = storage;
      world.manager = await ConversationManager.resume(manager.conversationId, { llm, storage, promptBuilder: builder });
      return world.manager;
    },
    dispose: async () => {
      library.dispose();
      await storage.close();
      await prompts.remove();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** Every event of a run, in order. */
export async function collect(events: AsyncGenerator<FlowEvent>, onEvent?: (e: FlowEvent) => void): Promise<FlowEvent[]> {
  const out: FlowEvent[] = [];
  for await (const e of events) {
    out.push(e);
    onEvent?.(e);
  }
  return out;
}

/** An `edit_file` tool that records its calls. */
export function editTool(edits: Array<Record<string, unknown>>) {
  return defineTool<{ path: string; text?: string }>({
    name: 'edit_file',
    description: 'Edits a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path'] },
    readOnly: false,
    run: (input) => {
      edits.push(input);
      return { content: `edited ${input.path}`, modifiedFiles: [input.path] };
    },
  });
}
