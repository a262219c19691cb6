/**
 * The metadata keys Arbor reads and writes, typed in one place. Metadata is stored as free JSON
 * (`Record<string, unknown>`: old databases, imported dataknobs files, other tools), so every read
 * goes through a reader that checks the value's shape and leaves out what does not fit.
 */
import type { PromptModelSettings, PromptOutput, PromptRef, RagMetadata } from './promptContracts';
import type { OutputProblem } from './errors';
import { parseChatRequestOptions, type ChatRequestOptions } from './requestOptions';
import { parseToolChoice, type ToolChoice } from './storedToolChoice';
import type { FinishReason, Usage } from './types';

/**
 * Why a streamed answer ended early: the reader stopped, the caller's signal cancelled it, it reached a size
 * or time cap (`arbor.limits.*`), or it failed.
 */
export type StopReason = 'consumer' | 'cancelled' | 'limit' | 'failed';

/** A file or selection attached to a user message, as kept in its metadata (its text is in the content). */
export interface StoredAttachment {
  kind: 'file' | 'selection';
  /** Workspace-relative path with `/` separators. */
  path: string;
  /** 1-based inclusive lines; absent for a whole file. */
  startLine?: number;
  endLine?: number;
  language?: string;
  /** Read though the workspace's rules leave it out: the user picked it by hand. */
  ignored?: boolean;
}

/** What a compaction node summarises and how it was made (its `metadata.compaction`). */
export interface CompactionInfo {
  /** The first message kept verbatim: requests below the summary resume there. */
  firstKeptNodeId: string;
  /** How many messages the summary stands for (since the previous compaction's kept part). */
  coveredCount: number;
  /** Tokens the request carried before the compaction, and carries after it. */
  tokensBefore: number;
  tokensAfter: number;
  /** `model`: a summary written by a model; `fallback`: the user messages kept, answers shortened, no model call. */
  method: 'model' | 'fallback';
  /** What asked for it: `/compact` or Compact up to Here, the context filling up, or the provider refusing a request for length. */
  trigger: 'manual' | 'auto' | 'overflow';
  /** The model that wrote the summary. */
  model?: string;
  /** The summary prompt's file and version. */
  prompt?: PromptRef;
  /** What the user asked the summary to focus on (`/compact <focus>`). */
  focus?: string;
  /** Files read (attached, retrieved) and changed in the covered part, with the previous summary's. */
  readFiles: string[];
  modifiedFiles: string[];
}

/** An instruction file an answer was made with (an entry of its `metadata.instructions`). */
export interface InstructionRef {
  /** Workspace-relative path, `/` separators. */
  path: string;
  /** Which tool's format it is (`agents`, `copilotInstructions`, `cursor`...; see `InstructionKind`). */
  kind: string;
  /** The git blob id of the version sent, to tell later whether the file changed. */
  gitBlobId: string;
  /** It applied but the chat excluded it, so it was not sent. */
  excluded?: boolean;
}

/** What a branch summary node carries over (its `metadata.branchSummary`). */
export interface BranchSummaryInfo {
  /** The end of the branch the reader left. */
  fromNodeId: string;
  /** How many messages of that branch the summary stands for (below the fork). */
  coveredCount: number;
  /** The model that wrote it. */
  model?: string;
}

/**
 * How a tool call ended: it ran (`done`), it or its input failed (`failed`), the user refused it
 * (`denied`), the user stopped the run or its step limit came first (`cancelled`), or Arbor was closed or
 * killed before it returned (`interrupted`, written when the conversation is next continued or opened).
 */
export type ToolResultStatus = 'done' | 'failed' | 'denied' | 'cancelled' | 'interrupted';

/** How a tool result node came to be (its `metadata.toolResult`). */
export interface ToolResultInfo {
  status: ToolResultStatus;
  /** The step of the run that made the call (1: the run's first answer). */
  step?: number;
  /** ISO time the tool started running; absent when it never ran. */
  startedAt?: string;
  /** ISO time its result was known. */
  endedAt: string;
}

/**
 * One step of a structured answer (`CompleteOptions.outputSchema`), on its node's `metadata.structured`:
 * an answer the model gave (`kind: 'answer'`, with `problems` when it failed the schema), or the user turn
 * Arbor added to send an invalid answer's problems back (`kind: 'correction'`, after answer `attempt`).
 */
export interface StructuredAttempt {
  kind: 'answer' | 'correction';
  /** Which answer it is (1: the first), or for a correction, which answer it corrects. */
  attempt: number;
  /** How many answers the call could ask for in all (1 + retries). */
  attempts: number;
  /** The schema's hash (`outputSchemaHash`), the same on every step of one call. */
  schemaHash: string;
  /** Where and how the answer failed the schema; absent on a valid answer. */
  problems?: OutputProblem[];
}

/** What `metadata.flow` holds on a node a flow wrote. */
export interface FlowNodeInfo {
  name: string;
  /** The flow file's sha256 when the step ran. */
  version: string;
  /** One run of the flow; a resumed or re-run flow keeps its run id. */
  runId: string;
  state: string;
  /** 1 for the first step of the run. */
  step: number;
  /** On the step's first node: the memory the step started with. */
  memoryIn?: Record<string, unknown>;
  /** On the step's last node, once it completed: the memory after it. */
  memory?: Record<string, unknown>;
  /** With `memory`: the state chosen next; `null` after a finish step. */
  next?: string | null;
  /** The conductor's question or answer (it picked the next state). */
  conductor?: boolean;
}

/** The accepted structured answer's value, on its node's `metadata.structuredOutput`. */
export interface StructuredOutputInfo {
  /** The answer's JSON, parsed; valid against the schema. */
  value: unknown;
  schemaHash: string;
}

const TOOL_RESULT_STATUSES: readonly ToolResultStatus[] = ['done', 'failed', 'denied', 'cancelled', 'interrupted'];

/** The keys of a message node's `metadata` that Arbor writes or reads. */
export interface NodeMetadata {
  /** Any message: the reader bookmarked it ("Go to Bookmark" lists it; retention keeps its conversation). */
  bookmarked?: boolean;
  /**
   * Any message: the reader's note on it, shown in the chat and the tree and exported in Markdown.
   * Display only: requests carry messages, never node metadata, so a note never reaches a model.
   */
  note?: string;
  /** User message: the text as typed (or `/prompt text`), shown instead of the content it became. */
  displayText?: string;
  /** User message: what was attached; their text follows the typed text in the content. */
  attachments?: StoredAttachment[];
  /** Answer: the model that wrote it. */
  model?: string;
  /** Answer: the provider's name (`openai`, `ollama`). */
  provider?: string;
  /** Answer: why the model stopped. */
  finishReason?: FinishReason;
  /** Answer: tokens of the call. */
  usage?: Usage;
  /** Answer: what the call cost in USD; conversation and branch totals add these up. */
  costUsd?: number;
  /** Answer: the stream ended before the model finished (the text so far is kept). */
  interrupted?: boolean;
  /** Answer: why an interrupted stream ended. */
  stopReason?: StopReason;
  /** Answer: the failure that cut the stream, as a message a person can read. */
  error?: string;
  /** Answer: how many messages the context window left out of the request. */
  contextDroppedMessages?: number;
  /** Answer: the library system prompt it was made with (name, file and version); absent when none was sent from the library. */
  systemPrompt?: PromptRef;
  /** Answer: the instruction files (AGENTS.md, rules) that applied to its request, with their versions; excluded ones are marked. */
  instructions?: InstructionRef[];
  /** Answer: the per-call model settings that overrode the provider's. */
  configOverrides?: Record<string, unknown>;
  /** Answer: what the provider reported beyond the text (response id, durations). */
  response?: Record<string, unknown>;
  /** Prompt message: what each retrieval found, by placeholder (reused on other branches). */
  ragMetadata?: Record<string, RagMetadata>;
  /** Prompt message: the older name of `ragMetadata`, still read (a record or a list); never written. */
  rag?: Record<string, RagMetadata> | RagMetadata[];
  /** Prompt message: which prompt file rendered it. */
  prompt?: PromptRef;
  /**
   * Prompt message: the parameters as filled in the `/` form (text values, by name), so Edit can reopen
   * the form with them. Absent on messages written before it was kept; the form then starts from defaults.
   */
  promptParams?: Record<string, string>;
  /** Prompt message: parameters the template used but was not given. */
  paramsMissing?: string[];
  /** Prompt message: what validating the parameters warned about. */
  validationWarnings?: string[];
  /** Prompt message: the model settings from the prompt's front matter. */
  promptSettings?: PromptModelSettings;
  /**
   * Prompt message: the structured answer its prompt asks for (front matter `output:`), so whoever answers it
   * (the chat, Regenerate) passes `schema` and `retries` to `complete({ outputSchema, retries })`.
   */
  promptOutput?: PromptOutput;
  /** Compaction node: what its summary covers (see `CompactionInfo`). */
  compaction?: CompactionInfo;
  /** Files a message changed (written by tools), listed by compactions. */
  modifiedFiles?: string[];
  /** Branch summary node: the summary of a branch the reader left, carried into this one. */
  branchSummary?: BranchSummaryInfo;
  /** Answer in a tool run: which step of the run it is (1: the first). */
  toolStep?: number;
  /** Tool result: how the call ended and when (see `ToolResultInfo`). */
  toolResult?: ToolResultInfo;
  /**
   * Answer of an Ask Several Models run: the run's id, the same on every answer it made (and on a merge
   * of them), so the chat offers Compare and Merge on those siblings.
   */
  severalRun?: string;
  /** Answer made by Merge: the answer nodes it fused, in the order the merge request listed them. */
  mergedFrom?: string[];
  /** Any node a flow wrote: the flow, its version, run, state and step, and the memory around the step (see `FlowNodeInfo`). */
  flow?: FlowNodeInfo;
  /** Answer or correction turn of a structured answer: which attempt and what was wrong (see `StructuredAttempt`). */
  structured?: StructuredAttempt;
  /** The accepted answer of a structured call: its parsed value (see `StructuredOutputInfo`); the chat shows it as a card. */
  structuredOutput?: StructuredOutputInfo;
}

/** The keys of a conversation's `metadata` that Arbor writes or reads. */
export interface ConversationMetadata {
  /** Shown in the sidebar and on the chat tab; empty until the first message names it. */
  title?: string;
  /** The cost of every answer on every branch in USD, kept here so the list shows it without loading nodes. */
  totalCostUsd?: number;
  /** The first user message, read as a title fallback when a writer kept it; Arbor does not write it. */
  firstMessage?: string;
  /** At each fork a reader passed, the child they last went down, so `‹ n/m ›` returns there. */
  lastVisitedChild?: Record<string, string>;
  /** The model this chat answers with (picked in it, or the default when it first answered). */
  model?: string;
  /** The provider `model` belongs to (`ollama`, `openai`); under another provider the chat uses the default model. */
  modelProvider?: string;
  /**
   * The system prompt of `prompts/system/` this chat sends (picked in it, or the default `arbor.systemPrompt`
   * when it first answered); `''` sends none from the library (a root system message, if any, is sent as stored).
   */
  systemPrompt?: string;
  /** The request options this chat sends with each answer (temperature, maximum output tokens, thinking). */
  requestOptions?: ChatRequestOptions;
  /** Instruction files (workspace-relative paths) the reader turned off for this chat: they are not sent. */
  excludedInstructions?: string[];
  /** The tools the user ticked, unticked and pinned in this chat's tools picker (see `ToolChoice`). */
  toolChoice?: ToolChoice;
}

type Parser<T> = (value: unknown) => T | undefined;
type Parsers<M> = { readonly [K in keyof M]-?: Parser<NonNullable<M[K]>> };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const text: Parser<string> = (v) => (typeof v === 'string' ? v : undefined);
const finite: Parser<number> = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const flag: Parser<boolean> = (v) => (typeof v === 'boolean' ? v : undefined);
const record: Parser<Record<string, unknown>> = (v) => (isObject(v) ? v : undefined);
const texts: Parser<string[]> = (v) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);
const isRag = (v: unknown): v is RagMetadata => isObject(v) && Array.isArray(v.results);

function ragRecord(v: unknown): Record<string, RagMetadata> | undefined {
  return isObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, RagMetadata] => isRag(e[1]))) : undefined;
}

function attachment(v: unknown): StoredAttachment | undefined {
  if (!isObject(v) || typeof v.path !== 'string') return undefined;
  const a: StoredAttachment = { kind: v.kind === 'selection' ? 'selection' : 'file', path: v.path };
  const startLine = finite(v.startLine);
  const endLine = finite(v.endLine);
  const language = text(v.language);
  if (startLine !== undefined) a.startLine = startLine;
  if (endLine !== undefined) a.endLine = endLine;
  if (language !== undefined) a.language = language;
  if (v.ignored === true) a.ignored = true;
  return a;
}

function instructionRef(v: unknown): InstructionRef | undefined {
  if (!isObject(v) || typeof v.path !== 'string' || typeof v.kind !== 'string' || typeof v.gitBlobId !== 'string') return undefined;
  return { path: v.path, kind: v.kind, gitBlobId: v.gitBlobId, ...(v.excluded === true ? { excluded: true } : {}) };
}

function promptRef(v: unknown): PromptRef | undefined {
  return isObject(v) && typeof v.name === 'string' ? (v as unknown as PromptRef) : undefined;
}

function flowNodeInfo(v: unknown): FlowNodeInfo | undefined {
  if (!isObject(v) || typeof v.name !== 'string' || typeof v.runId !== 'string' || typeof v.state !== 'string') return undefined;
  const step = finite(v.step);
  if (step === undefined) return undefined;
  const info: FlowNodeInfo = { name: v.name, version: text(v.version) ?? '', runId: v.runId, state: v.state, step };
  if (isObject(v.memoryIn)) info.memoryIn = v.memoryIn;
  if (isObject(v.memory)) info.memory = v.memory;
  if (v.next === null || typeof v.next === 'string') info.next = v.next;
  if (v.conductor === true) info.conductor = true;
  return info;
}

function compactionInfo(v: unknown): CompactionInfo | undefined {
  if (!isObject(v) || typeof v.firstKeptNodeId !== 'string') return undefined;
  const info: CompactionInfo = {
    firstKeptNodeId: v.firstKeptNodeId,
    coveredCount: finite(v.coveredCount) ?? 0,
    tokensBefore: finite(v.tokensBefore) ?? 0,
    tokensAfter: finite(v.tokensAfter) ?? 0,
    method: v.method === 'fallback' ? 'fallback' : 'model',
    trigger: v.trigger === 'auto' || v.trigger === 'overflow' ? v.trigger : 'manual',
    readFiles: texts(v.readFiles) ?? [],
    modifiedFiles: texts(v.modifiedFiles) ?? [],
  };
  const model = text(v.model);
  const focus = text(v.focus);
  if (model !== undefined) info.model = model;
  if (focus !== undefined) info.focus = focus;
  if (isObject(v.prompt) && typeof v.prompt.name === 'string') info.prompt = v.prompt as unknown as PromptRef;
  return info;
}

function structuredAttempt(v: unknown): StructuredAttempt | undefined {
  if (!isObject(v) || (v.kind !== 'answer' && v.kind !== 'correction')) return undefined;
  const attempt = finite(v.attempt);
  const attempts = finite(v.attempts);
  if (attempt === undefined || attempts === undefined || typeof v.schemaHash !== 'string') return undefined;
  const out: StructuredAttempt = { kind: v.kind, attempt, attempts, schemaHash: v.schemaHash };
  if (Array.isArray(v.problems)) {
    out.problems = v.problems.filter((p): p is OutputProblem => isObject(p) && typeof p.path === 'string' && typeof p.message === 'string').map((p) => ({ path: p.path, message: p.message }));
  }
  return out;
}

const NODE_PARSERS: Parsers<NodeMetadata> = {
  bookmarked: flag,
  note: text,
  displayText: text,
  attachments: (v) => (Array.isArray(v) ? v.map(attachment).filter((a): a is StoredAttachment => a !== undefined) : undefined),
  model: text,
  provider: text,
  finishReason: text,
  usage: (v) =>
    isObject(v) && [v.promptTokens, v.completionTokens, v.totalTokens].every((n) => finite(n) !== undefined)
      ? { promptTokens: v.promptTokens as number, completionTokens: v.completionTokens as number, totalTokens: v.totalTokens as number }
      : undefined,
  costUsd: finite,
  interrupted: flag,
  stopReason: (v) => (v === 'consumer' || v === 'cancelled' || v === 'limit' || v === 'failed' ? v : undefined),
  // Older answers kept the error as `{ message }`.
  error: (v) => text(v) ?? (isObject(v) ? text(v.message) : undefined),
  contextDroppedMessages: finite,
  configOverrides: record,
  response: record,
  ragMetadata: ragRecord,
  rag: (v) => (Array.isArray(v) ? v.filter(isRag) : ragRecord(v)),
  prompt: promptRef,
  systemPrompt: promptRef,
  instructions: (v) => (Array.isArray(v) ? v.map(instructionRef).filter((r): r is InstructionRef => r !== undefined) : undefined),
  promptParams: (v) => (isObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : undefined),
  paramsMissing: texts,
  validationWarnings: texts,
  promptSettings: (v) => (isObject(v) ? (v as PromptModelSettings) : undefined),
  promptOutput: (v) => (isObject(v) && isObject(v.schema) && typeof v.schemaHash === 'string' ? (v as unknown as PromptOutput) : undefined),
  compaction: compactionInfo,
  modifiedFiles: texts,
  branchSummary: (v) =>
    isObject(v) && typeof v.fromNodeId === 'string'
      ? { fromNodeId: v.fromNodeId, coveredCount: finite(v.coveredCount) ?? 0, ...(typeof v.model === 'string' ? { model: v.model } : {}) }
      : undefined,
  toolStep: finite,
  toolResult: (v) => {
    if (!isObject(v) || !TOOL_RESULT_STATUSES.includes(v.status as ToolResultStatus) || typeof v.endedAt !== 'string') return undefined;
    const info: ToolResultInfo = { status: v.status as ToolResultStatus, endedAt: v.endedAt };
    const step = finite(v.step);
    if (step !== undefined) info.step = step;
    if (typeof v.startedAt === 'string') info.startedAt = v.startedAt;
    return info;
  },
  severalRun: text,
  mergedFrom: (v) => {
    const ids = texts(v);
    return ids && ids.length > 0 ? ids : undefined;
  },
  flow: flowNodeInfo,
  structured: structuredAttempt,
  structuredOutput: (v) => (isObject(v) && 'value' in v && typeof v.schemaHash === 'string' ? { value: v.value, schemaHash: v.schemaHash } : undefined),
};

const CONVERSATION_PARSERS: Parsers<ConversationMetadata> = {
  title: text,
  totalCostUsd: finite,
  firstMessage: text,
  lastVisitedChild: (v) =>
    isObject(v) && Object.values(v).every((child) => typeof child === 'string') ? ({ ...v } as Record<string, string>) : undefined,
  model: text,
  modelProvider: text,
  systemPrompt: text,
  requestOptions: parseChatRequestOptions,
  excludedInstructions: texts,
  toolChoice: parseToolChoice,
};

function readAll<M>(parsers: Parsers<M>, metadata: Readonly<Record<string, unknown>> | undefined): M {
  const out: Record<string, unknown> = {};
  if (!metadata) return out as M;
  for (const key of Object.keys(parsers) as (keyof M & string)[]) {
    if (!(key in metadata)) continue;
    const value = parsers[key](metadata[key]);
    if (value !== undefined) out[key] = value;
  }
  return out as M;
}

/** One key of a node's metadata, or `undefined` when it is missing or has the wrong shape. */
export function readNodeMetadata<K extends keyof NodeMetadata>(metadata: Readonly<Record<string, unknown>> | undefined, key: K): NodeMetadata[K] | undefined {
  return NODE_PARSERS[key](metadata?.[key]) as NodeMetadata[K] | undefined;
}

/** Every known key of a node's metadata that has the right shape (unknown keys are left out). */
export function nodeMetadata(metadata: Readonly<Record<string, unknown>> | undefined): NodeMetadata {
  return readAll(NODE_PARSERS, metadata);
}

/** One key of a conversation's metadata, or `undefined` when it is missing or has the wrong shape. */
export function readConversationMetadata<K extends keyof ConversationMetadata>(
  metadata: Readonly<Record<string, unknown>> | undefined,
  key: K,
): ConversationMetadata[K] | undefined {
  return CONVERSATION_PARSERS[key](metadata?.[key]) as ConversationMetadata[K] | undefined;
}

/** Every known key of a conversation's metadata that has the right shape (unknown keys are left out). */
export function conversationMetadata(metadata: Readonly<Record<string, unknown>> | undefined): ConversationMetadata {
  return readAll(CONVERSATION_PARSERS, metadata);
}

/** The metadata of a bookmarked message (what `findMessages` looks for, and what keeps a conversation from retention). */
export const BOOKMARKED = { bookmarked: true } as const satisfies NodeMetadata;

/** The retrievals stored on a node, from `ragMetadata` or else the older `rag`, as a list. */
export function nodeRagMetadata(metadata: Readonly<Record<string, unknown>> | undefined): RagMetadata[] {
  const rag = readNodeMetadata(metadata, 'ragMetadata') ?? readNodeMetadata(metadata, 'rag');
  if (!rag) return [];
  return Array.isArray(rag) ? rag : Object.values(rag);
}
