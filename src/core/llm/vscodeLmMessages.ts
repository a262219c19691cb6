/**
 * Arbor's messages and tools in the shapes of VS Code's language model API (`vscode.lm`). The parts are
 * made by a `LmPartFactory` the caller hands in: the host passes VS Code's own classes
 * (`LanguageModelTextPart`, `LanguageModelToolCallPart`…), tests pass plain ones, so the mapping is pure.
 */
import { ProviderError } from '../errors';
import type { LLMMessage, ToolDefinition } from '../types';
import { VSCODE_PROVIDER_NAME } from './vscodeLmIds';

/** Makes the API's parts and messages; `Part` and `Message` are whatever the caller's classes are. */
export interface LmPartFactory<Part, Message> {
  text(value: string): Part;
  toolCall(callId: string, name: string, input: object): Part;
  /** A tool's result; `content` holds text parts. */
  toolResult(callId: string, content: Part[]): Part;
  user(parts: Part[]): Message;
  assistant(parts: Part[]): Message;
}

/** A tool as `LanguageModelChatTool` describes it. */
export interface LmTool {
  name: string;
  description: string;
  inputSchema?: object;
}

/** Opens the system text in the User message that carries it. */
export const SYSTEM_OPEN = '<system_instructions>';
/** Closes it. */
export const SYSTEM_CLOSE = '</system_instructions>';

/**
 * The system text as a User message's text. The stable API has only User and Assistant messages (a System
 * role needs the `languageModelSystem` proposal, refused to other extensions), so the system prompt goes
 * first as a User message, fenced so the model can tell the instructions from the user's words.
 */
export function systemAsUserText(system: string): string {
  return `The following are your system instructions for this conversation; follow them.\n${SYSTEM_OPEN}\n${system}\n${SYSTEM_CLOSE}`;
}

/** A tool call's JSON arguments as the object the API takes; text that is not an object is kept under `arguments`. */
function callInput(args: string): object {
  if (!args.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as object;
  } catch {
    // Kept as text below: the model wrote it so.
  }
  return { arguments: args };
}

/**
 * Arbor's request messages as VS Code's: system text as a fenced User message (in place, so a system
 * message later in the history keeps its place), user text as User, answers as Assistant with their tool
 * calls, and each run of tool results as one User message of `LanguageModelToolResultPart`s. Thinking is
 * not sent back (as with the other providers). Images are refused: the stable API of VS Code 1.100 takes
 * text only, and dropping them would change the question without a word.
 */
export function toLmMessages<Part, Message>(messages: readonly LLMMessage[], make: LmPartFactory<Part, Message>, model: string): Message[] {
  const out: Message[] = [];
  let results: Part[] = [];
  const flushResults = () => {
    if (results.length) out.push(make.user(results));
    results = [];
  };
  for (const m of messages) {
    if (m.images?.length) {
      throw new ProviderError(`The VS Code model '${model}' is given text only (VS Code's language model API takes no images here): remove the image from the message, or pick an Ollama or OpenAI model that reads images.`, {
        kind: 'bad_request',
        retryable: false,
        provider: VSCODE_PROVIDER_NAME,
      });
    }
    if ((m.role === 'tool' || m.role === 'function') && m.toolCallId) {
      results.push(make.toolResult(m.toolCallId, [make.text(m.content)]));
      continue;
    }
    flushResults();
    switch (m.role) {
      case 'system':
        if (m.content.trim()) out.push(make.user([make.text(systemAsUserText(m.content))]));
        break;
      case 'assistant': {
        const parts: Part[] = [];
        if (m.content || !m.toolCalls?.length) parts.push(make.text(m.content));
        for (const call of m.toolCalls ?? []) parts.push(make.toolCall(call.id, call.function.name, callInput(call.function.arguments)));
        out.push(make.assistant(parts));
        break;
      }
      default:
        // user, and a tool/function message that answers no call (older files): the text as the user's, named.
        out.push(make.user([make.text(m.role === 'user' || !m.name ? m.content : `[${m.name}] ${m.content}`)]));
    }
  }
  flushResults();
  return out;
}

/** Arbor's tool definitions as `LanguageModelChatTool`s. */
export function toLmTools(tools: readonly ToolDefinition[] | undefined): LmTool[] {
  return (tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? '',
    ...(t.function.parameters ? { inputSchema: t.function.parameters } : {}),
  }));
}
