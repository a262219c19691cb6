/**
 * A structured answer (`CompleteOptions.outputSchema`): the model is asked for JSON matching a schema, each
 * answer is validated, and an invalid one is followed by a correction turn listing its problems, then
 * asked again, up to `retries` times. Every attempt stays in the tree:
 *
 *   question ─ answer 1 (metadata.structured: kind answer, problems) ─ correction 1 (user, kind correction)
 *            ─ answer 2 (metadata.structured: kind answer; metadata.structuredOutput: { value, schemaHash })
 *
 * `complete` drains this generator (it yields nothing there); `streamComplete` yields each attempt's chunks
 * in turn, each attempt ending with its own `done: true` chunk.
 */
import { InvalidArgumentError, OutputValidationError, type OutputProblem } from '../errors';
import type { ResponseFormat } from '../llm/provider';
import type { StructuredAttempt, StructuredOutputInfo } from '../metadataKeys';
import type { NewNode } from '../storage/storage';
import type { ConversationNode, LLMMessage, LLMResponse, LLMStreamChunk, ToolDefinition } from '../types';
import { compileOutputSchema, correctionText, problemLines } from './outputSchema';

/** Retries after an invalid answer when the call does not say. */
export const DEFAULT_OUTPUT_RETRIES = 2;
/** Most retries a call may ask for. */
export const MAX_OUTPUT_RETRIES = 10;

/**
 * What a structured run reads of a call's options: its own declaration of the fields it uses, which the
 * conversation's `CompleteOptions` has (structured/ does not import the conversation).
 */
export interface StructuredCallOptions {
  /** The JSON Schema the answer must match. */
  outputSchema?: object;
  /** More answers to ask for after an invalid one. */
  retries?: number;
  /** Refused with a schema: tools run first. */
  tools?: readonly ToolDefinition[];
  /** Refused with a schema. */
  requestMessages?: readonly LLMMessage[];
  /** Named on the first answer only. */
  branchName?: string;
  /** Told every node the run stores: each answer and each correction turn. */
  onStored?: (node: ConversationNode) => void;
}

/** What a structured run needs of a prepared request: its call options, where it sets the response format. */
export interface StructuredCall {
  callOptions: { responseFormat?: ResponseFormat };
}

/**
 * How a structured run asks for answers and stores nodes: the manager's own steps (see `ConversationManager`),
 * over its own options (`O`) and prepared requests (`P`).
 */
export interface StructuredSteps<O extends StructuredCallOptions, P extends StructuredCall> {
  /** The request answering `from` (its path, window and middleware). */
  prepare(options: O, from: string): Promise<P>;
  /**
   * Asks for one answer (streamed or not), stores it with `extra(response)` merged into its metadata, and
   * tells `onStored` its node; returns the stored response.
   */
  answer(
    prepared: P,
    options: O,
    extra: (response: LLMResponse) => Record<string, unknown>,
    onStored: (node: ConversationNode) => void,
  ): AsyncGenerator<LLMStreamChunk, LLMResponse>;
  /** Stores a node (a correction turn) under its parent and moves there. */
  commit(node: NewNode): Promise<ConversationNode>;
}

/** Checks what a structured call may be given, before anything is sent; an `InvalidArgumentError` otherwise. */
export function checkStructuredOptions(options: StructuredCallOptions): number {
  const retries = options.retries ?? DEFAULT_OUTPUT_RETRIES;
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_OUTPUT_RETRIES) {
    throw new InvalidArgumentError(`retries must be a whole number from 0 to ${MAX_OUTPUT_RETRIES}, not ${String(options.retries)}.`);
  }
  if (options.tools?.length) {
    throw new InvalidArgumentError('outputSchema cannot be combined with tools: run the tools first (runWithTools), then ask for the structured answer.');
  }
  if (options.requestMessages) throw new InvalidArgumentError('outputSchema cannot be combined with requestMessages.');
  return retries;
}

/** The name servers get for a schema: its `title` reduced to letters, digits, `_` and `-`, else `answer`. */
export function schemaName(schema: Record<string, unknown>): string {
  const title = typeof schema.title === 'string' ? schema.title.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64) : '';
  return title || 'answer';
}

/**
 * Answers `start` with a structured answer (see the file header); returns the accepted answer with
 * `parsed`, or throws `OutputValidationError` after the last invalid one.
 */
export async function* runStructured<O extends StructuredCallOptions, P extends StructuredCall>(steps: StructuredSteps<O, P>, start: string, options: O): AsyncGenerator<LLMStreamChunk, LLMResponse> {
  const retries = checkStructuredOptions(options);
  const output = await compileOutputSchema(options.outputSchema);
  const attempts = retries + 1;
  const responseFormat = { schema: output.schema, name: schemaName(output.schema) };
  let from = start;
  for (let attempt = 1; ; attempt++) {
    // The branch name goes on the first answer only: the retries continue that branch.
    const attemptOptions: O = attempt === 1 ? options : { ...options, branchName: undefined };
    const prepared = await steps.prepare(attemptOptions, from);
    prepared.callOptions.responseFormat = responseFormat;
    let verdict: ReturnType<typeof output.check> | undefined;
    let stored: ConversationNode | undefined;
    const response = yield* steps.answer(
      prepared,
      attemptOptions,
      (r) => {
        verdict = output.check(r.content);
        const structured: StructuredAttempt = { kind: 'answer', attempt, attempts, schemaHash: output.schemaHash };
        if (!verdict.ok) return { structured: { ...structured, problems: verdict.problems } };
        const structuredOutput: StructuredOutputInfo = { value: verdict.value, schemaHash: output.schemaHash };
        return { structured, structuredOutput };
      },
      (node) => {
        stored = node;
        options.onStored?.(node);
      },
    );
    if (!verdict || !stored) throw new Error('A structured answer was stored without being checked.');
    if (verdict.ok) return { ...response, parsed: verdict.value };
    if (attempt === attempts) throw failure(verdict.problems, response.content, stored.nodeId, attempts);
    const correction: StructuredAttempt = { kind: 'correction', attempt, attempts, schemaHash: output.schemaHash, problems: verdict.problems };
    const node = await steps.commit({
      parentId: stored.nodeId,
      message: { role: 'user', content: correctionText(verdict.problems) },
      timestamp: new Date().toISOString(),
      metadata: { structured: correction },
    });
    options.onStored?.(node);
    from = node.nodeId;
  }
}

function failure(problems: OutputProblem[], rawAnswer: string, nodeId: string, attempts: number): OutputValidationError {
  const tries = attempts === 1 ? 'its answer' : `${attempts} answers`;
  const message = [
    `The model's answer does not match the output schema (after ${tries}); the last one is kept as node "${nodeId}":`,
    ...problemLines(problems),
  ].join('\n');
  return new OutputValidationError(message, problems, rawAnswer, nodeId, attempts);
}

/** Reads a generator to its end and returns its value (how `complete` runs a structured call). */
export async function drain<T>(generator: AsyncGenerator<unknown, T>): Promise<T> {
  for (;;) {
    const step = await generator.next();
    if (step.done) return step.value;
  }
}
