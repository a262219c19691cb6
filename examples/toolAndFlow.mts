// The engine without VS Code: a conversation whose model calls a tool, then a flow over the same conversation.
// Run from the repository's root: `npx tsx examples/toolAndFlow.mts` (Ollama at OLLAMA_HOST, model ARBOR_MODEL).
import { ConversationManager, FileSystemPromptLibrary, OllamaProvider, PromptBuilder, SqlJsConversationStorage, ToolExecutor, defineTool, flowToolsFrom, parseFlowFile, runFlow } from '../src/core/index';

const llm = new OllamaProvider({ host: process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434', model: process.env.ARBOR_MODEL ?? 'llama3.2' });
const promptBuilder = new PromptBuilder(await FileSystemPromptLibrary.open('prompts'));
const chat = await ConversationManager.create({ llm, storage: await SqlJsConversationStorage.open(), promptBuilder, systemPrompt: 'Answer in one line.' });
const wordCount = defineTool<{ text: string }>({
  name: 'word_count', description: 'Counts the words of a text.', readOnly: true,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
});
const allow = () => 'allow' as const;

// The model answers with the tool's help; each call and result is a node of the tree.
await chat.addMessage({ role: 'user', content: 'How many words are in "to be or not to be"?' });
const run = await chat.runWithTools({ executor: new ToolExecutor([wordCount]), approve: allow });
console.log(`answer after ${run.steps} model calls: ${run.response?.content}`);

// A flow: the tool counts, the model titles, the finish step answers.
const yaml = `
inputs: { text: { required: true } }
start: count
states:
  count: { type: tool, tool: word_count, args: { text: "{{text}}" }, result: words, next: title }
  title: { type: agent, userTemplate: "Title this {{words}}-word text: {{text}}", result: title, next: done }
  done: { type: finish, template: "{{title}} ({{words}} words)" }
`;
const { flow, diagnostics } = parseFlowFile({ path: 'flows/title.yaml', name: 'title', bytes: new TextEncoder().encode(yaml) });
if (!flow) throw new Error(diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`).join('\n'));
for await (const event of runFlow(chat, flow, { text: 'to be or not to be' }, { tools: flowToolsFrom([wordCount], allow) })) {
  if (event.type === 'flow-finished') console.log(`flow: ${event.answer}`);
  if (event.type === 'flow-failed') throw event.error;
}
console.log(`the tree has ${chat.getAllNodes().length} nodes; the answer is at ${chat.getDotPath(chat.currentNodeId)}`);
