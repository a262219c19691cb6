/**
 * Holds a set of tools and what they share. It offers the tools to a model (`definitions`), turns a
 * call the model made into a checked input or a text saying what to fix (`prepare`), runs it so that a
 * thrown error, a stop or an oversized output still gives the model a result (`run`), and owns the
 * tools' dependencies: each is created on first use and closed by `dispose`.
 */
import { InvalidArgumentError } from '../errors';
import type { Logger } from '../files';
import type { ToolCall, ToolDefinition } from '../types';
import type { Tool, ToolContext, ToolDependency, ToolOutput } from './tool';
import { ToolInputValidator } from './toolInput';
import { TOOL_RESULT_TEXTS } from './toolResults';
import { headAndTail } from '../textCuts';

/** Most characters of one result kept by default (the size cap of a model's own answer). */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 1_000_000;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Settings of a `ToolExecutor`. */
export interface ToolExecutorOptions {
  /** Most characters of one result kept in the conversation; a longer output keeps its head and tail (default 1,000,000). */
  maxOutputChars?: number;
  /** Hears of a dependency that failed to close. */
  logger?: Pick<Logger, 'warn'>;
}

/** A call ready to run, or the text that tells the model why it cannot. */
export type PreparedToolCall =
  | { ok: true; call: ToolCall; tool: Tool; input: Record<string, unknown> }
  | { ok: false; call: ToolCall; tool?: Tool; error: string };

/** How a run of a tool ended, with the text the model reads. */
export interface ToolRunOutcome {
  status: 'done' | 'failed' | 'cancelled';
  content: string;
  modifiedFiles?: string[];
  metadata?: Record<string, unknown>;
}

/** Runs the tools the model may call and owns their dependencies; see the file's header. */
export class ToolExecutor {
  private readonly byName = new Map<string, Tool>();
  private readonly validator = new ToolInputValidator();
  private readonly maxOutputChars: number;
  private readonly instances = new Map<ToolDependency<unknown>, Promise<unknown>>();
  private readonly created: Array<{ dependency: ToolDependency<unknown>; value: unknown }> = [];
  private closed = false;
  /** Why each tool left out for its schema was left out. */
  readonly refusals: string[] = [];

  /**
   * Checks every tool's name, description and schema shape now; the schemas themselves are compiled on
   * first use (or by `ready()`), so making an executor costs nothing until a model calls a tool.
   */
  constructor(tools: readonly Tool[], private readonly options: ToolExecutorOptions = {}) {
    for (const tool of tools) {
      if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name)) {
        throw new InvalidArgumentError(`Tool name ${JSON.stringify(tool?.name)} is not allowed: use 1 to 64 letters, digits, "_" or "-".`);
      }
      if (this.byName.has(tool.name)) throw new InvalidArgumentError(`Two tools are named "${tool.name}"; tool names must be unique.`);
      if (typeof tool.description !== 'string' || !tool.description.trim()) {
        throw new InvalidArgumentError(`Tool "${tool.name}" needs a description: it is how the model knows when to call it.`);
      }
      if (typeof tool.run !== 'function') throw new InvalidArgumentError(`Tool "${tool.name}" has no run function.`);
      // A schema Arbor will not compile (a server's or another extension's) leaves that tool out, not the others.
      const refusal = ToolInputValidator.refusal(tool.name, tool.inputSchema);
      if (refusal) {
        this.refusals.push(refusal);
        options.logger?.warn(refusal);
        continue;
      }
      this.validator.add(tool.name, tool.inputSchema);
      this.byName.set(tool.name, tool);
    }
    this.maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS;
  }

  /** The tools, in the order given. */
  get tools(): Tool[] {
    return [...this.byName.values()];
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /** Whether `dispose` has run. */
  get disposed(): boolean {
    return this.closed;
  }

  /** The tools in the shape a provider sends (`{type: 'function', function: {name, description, parameters}}`). */
  definitions(): ToolDefinition[] {
    return this.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: structuredClone(t.inputSchema) } }));
  }

  /** Compiles every input schema now; rejects naming each tool whose schema is invalid or refused (a host may call it at start-up). */
  async ready(): Promise<void> {
    if (this.refusals.length) throw new InvalidArgumentError(this.refusals.join('\n'));
    return this.validator.ready();
  }

  /** The call's tool and checked input, or the text that tells the model what to fix. */
  async prepare(call: ToolCall): Promise<PreparedToolCall> {
    const tool = this.byName.get(call.function.name);
    if (!tool) return { ok: false, call, error: TOOL_RESULT_TEXTS.unknownTool(call.function.name, [...this.byName.keys()]) };
    const checked = await this.validator.check(tool.name, call.function.arguments);
    return checked.ok ? { ok: true, call, tool, input: checked.input } : { ok: false, call, tool, error: checked.error };
  }

  /**
   * Runs a prepared call. Never rejects: a thrown error becomes a `failed` outcome whose text says what
   * went wrong and how to retry; an abort of `signal` ends it at once as `cancelled` (the tool is told
   * through its context's signal, and whatever it returns later is dropped).
   */
  async run(prepared: Extract<PreparedToolCall, { ok: true }>, signal?: AbortSignal): Promise<ToolRunOutcome> {
    const { tool, call, input } = prepared;
    if (signal?.aborted) return { status: 'cancelled', content: TOOL_RESULT_TEXTS.stoppedBeforeRun };
    if (this.closed) return { status: 'failed', content: TOOL_RESULT_TEXTS.failed(tool.name, 'the tools were shut down (the window is closing)') };
    const controller = new AbortController();
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<ToolRunOutcome>((resolve) => {
      onAbort = () => {
        controller.abort(signal?.reason);
        resolve({ status: 'cancelled', content: TOOL_RESULT_TEXTS.stoppedWhileRunning });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const ctx: ToolContext = { signal: controller.signal, call, use: (dependency) => this.use(dependency) };
    const ran = (async (): Promise<ToolRunOutcome> => {
      try {
        return this.outcome(await tool.run(input, ctx));
      } catch (error) {
        return { status: 'failed', content: TOOL_RESULT_TEXTS.failed(tool.name, messageOf(error)) };
      }
    })();
    try {
      return await Promise.race([ran, stopped]);
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The shared instance of `dependency`, created on its first use (a failed creation is tried again next time). */
  use<T>(dependency: ToolDependency<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`${dependency.name} is not available: the tools were shut down.`));
    let instance = this.instances.get(dependency) as Promise<T> | undefined;
    if (!instance) {
      instance = (async () => {
        let value: T;
        try {
          // Never synchronously: the failure handler below must run after the promise is in the map.
          value = await Promise.resolve().then(() => dependency.create());
        } catch (error) {
          this.instances.delete(dependency);
          throw new Error(`Could not start ${dependency.name}: ${messageOf(error)}`, { cause: error });
        }
        if (this.closed) {
          // Disposed while it was being created: close it now, nobody else will.
          await this.close(dependency, value);
          throw new Error(`${dependency.name} is not available: the tools were shut down.`);
        }
        this.created.push({ dependency: dependency as ToolDependency<unknown>, value });
        return value;
      })();
      this.instances.set(dependency as ToolDependency<unknown>, instance);
    }
    return instance;
  }

  /** Closes every dependency created, newest first; a failure to close one is logged and the others still close. */
  async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const { dependency, value } of this.created.splice(0).reverse()) await this.close(dependency, value);
    this.instances.clear();
  }

  private async close<T>(dependency: ToolDependency<T>, value: T): Promise<void> {
    try {
      await dependency.close?.(value);
    } catch (error) {
      this.options.logger?.warn(`Closing ${dependency.name} failed: ${messageOf(error)}`);
    }
  }

  private outcome(output: ToolOutput): ToolRunOutcome {
    const record = typeof output === 'object' && output !== null && typeof output.content === 'string' ? output : undefined;
    const text = record ? record.content : typeof output === 'string' ? output : (JSON.stringify(output) ?? String(output));
    const result: ToolRunOutcome = { status: 'done', content: capOutput(text, this.maxOutputChars) };
    if (record?.modifiedFiles?.length) result.modifiedFiles = [...record.modifiedFiles];
    if (record?.metadata) result.metadata = structuredClone(record.metadata);
    return result;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

/** Keeps the head and tail of an output longer than `max`, saying how much was left out. */
export function capOutput(text: string, max: number): string {
  return headAndTail(text, max, (n) => `[… ${n} characters of the tool's output left out …]`);
}
