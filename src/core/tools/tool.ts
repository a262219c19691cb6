/**
 * What a tool is to the engine: a name and description the model reads, a JSON Schema its input must
 * match, whether it only reads, and the function that runs it. Tools reach what they need (a workspace,
 * a shell, a client) through dependencies that the `ToolExecutor` creates on first use and closes when
 * it is disposed, so a tool never opens or leaks a long-lived resource itself.
 */
import type { ToolCall } from '../types';

/** A JSON Schema (draft 2020-12 or 07) describing a tool's input object. */
export type JsonSchema = Record<string, unknown>;

/**
 * Something tools share and the executor owns, e.g. a language server client: `create` runs on the first
 * `ctx.use(dependency)` (once, however many calls ask at the same time), `close` when the executor is
 * disposed. The dependency object itself is the key, so two tools that import the same one share it.
 */
export interface ToolDependency<T> {
  /** For error messages: "could not start <name>". */
  readonly name: string;
  create(): T | Promise<T>;
  close?(value: T): void | Promise<void>;
}

/** A dependency from its name, factory and optional closer. */
export function toolDependency<T>(name: string, create: () => T | Promise<T>, close?: (value: T) => void | Promise<void>): ToolDependency<T> {
  return close ? { name, create, close } : { name, create };
}

/** What a running tool is given besides its input. */
export interface ToolContext {
  /** Aborts when the user stops the run; a tool that writes should stop at a safe point. */
  readonly signal: AbortSignal;
  /** The call being answered (its id, and the arguments as the model wrote them). */
  readonly call: ToolCall;
  /** The shared instance of `dependency`, created on first use. */
  use<T>(dependency: ToolDependency<T>): Promise<T>;
}

/**
 * What a tool returns: the text the model reads, or that text with metadata for the result node
 * (`modifiedFiles` is listed by compactions; anything else is kept for the UI, never sent).
 */
export type ToolOutput = string | { content: string; modifiedFiles?: string[]; metadata?: Record<string, unknown> };

/** A tool the model may call. `Input` is what `inputSchema` describes; the executor checks it before `run`. */
export interface Tool<Input = any> {
  /** What the model calls it: letters, digits, `_` and `-`, at most 64 characters (OpenAI's rule). */
  readonly name: string;
  /** What it does and when to use it, for the model. */
  readonly description: string;
  /** The JSON Schema of the input object. */
  readonly inputSchema: JsonSchema;
  /** Reads without changing anything: such calls of one step run in parallel, and hosts may approve them without asking. */
  readonly readOnly: boolean;
  /** Runs the call; a thrown error becomes a result the model reads (its message, with advice to retry). */
  run(input: Input, ctx: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/** Types a tool's `run` input from its declaration: `defineTool<{ path: string }>({ … })`. */
export function defineTool<Input>(tool: Tool<Input>): Tool<Input> {
  return tool;
}
