/**
 * The parts of offering other extensions' tools (`vscode.lm.tools`) that need no VS Code: which tools are
 * offered at all (not VS Code's internal ones, not those without a usable schema), wire names the engine
 * accepts, an input schema for tools that declare none, the text of a tool's result for the model, and a
 * call that an AbortSignal ends at once. `lmTools.ts` does the VS Code side.
 */
import { safeToolName, uniqueToolName, type JsonSchema } from '../../core/index';

/** A part of a `LanguageModelToolResult`, as `lmTools.ts` tells them apart. */
export type LmResultPart =
  | { kind: 'text'; value: string }
  /** A `LanguageModelPromptTsxPart`: a prompt-tsx element tree, serialized. */
  | { kind: 'promptTsx'; value: unknown }
  /** Binary data (`LanguageModelDataPart` in newer VS Code): described, not sent. */
  | { kind: 'data'; mimeType: string; bytes: number }
  | { kind: 'unknown'; description: string };

/** Why a tool of `vscode.lm.tools` is not offered: VS Code's own internal tool, or a schema a model API cannot take. */
export type LmToolLeftOut = 'internal' | 'schema';

/**
 * Whether a tool of `vscode.lm.tools` is left out of what Arbor offers, and why; `undefined` when it is
 * offered. Left out:
 * - `internal`: its name ends with `_internal` (VS Code's own tools, e.g. `vscode_editFile_internal`,
 *   which its chat calls with a context Arbor cannot give);
 * - `schema`: it declares an input schema that is not a JSON object schema (`{}`, no `type`, a type other
 *   than `object`, properties that are not an object, `required` that is not a list of names). A function-
 *   calling API takes only object schemas, and a model could not know what such a tool expects.
 * A tool that declares no schema at all takes no input, and is offered with an empty object schema.
 */
export function lmToolLeftOut(info: { readonly name: string; readonly inputSchema?: unknown }): LmToolLeftOut | undefined {
  if (/_internal$/i.test(info.name)) return 'internal';
  const schema = info.inputSchema;
  if (schema === undefined) return undefined;
  if (!isRecord(schema) || schema.type !== 'object') return 'schema';
  if (schema.properties !== undefined && !isRecord(schema.properties)) return 'schema';
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((name) => typeof name === 'string'))) return 'schema';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Wire names for tools named `names`, in order: the name itself when the engine accepts it, else made safe
 * (`[A-Za-z0-9_-]`, at most 64 characters); a name taken by an earlier tool or in `reserved` (the names of
 * the other providers' tools) gets `_2`, `_3`…. The same inputs give the same names.
 */
export function lmWireNames(names: readonly string[], reserved: Iterable<string> = []): string[] {
  const used = new Set(reserved);
  return names.map((name) => uniqueToolName(safeToolName(name), used));
}

/** The schema the engine checks a call's input against: the tool's own, or an object with any properties. */
export function lmInputSchema(schema: object | undefined): JsonSchema {
  return schema && Object.keys(schema).length > 0 ? (schema as JsonSchema) : { type: 'object', properties: {} };
}

/** The text the model reads from a tool's result parts, one part per paragraph. */
export function lmResultText(parts: readonly LmResultPart[]): string {
  return parts
    .map((part) => {
      switch (part.kind) {
        case 'text':
          return part.value;
        case 'promptTsx':
          return promptTsxText(part.value);
        case 'data':
          return `[${part.mimeType} data, ${part.bytes} bytes]`;
        case 'unknown':
          return `[${part.description}]`;
      }
    })
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * The text of a serialized prompt-tsx element tree (what `LanguageModelPromptTsxPart.value` holds): its text
 * chunks in order, a chunk marked `lineBreakBefore` on a line of its own. Without the prompt-tsx renderer,
 * priorities and token budgets are not applied; a tree with no text is given as JSON.
 */
export function promptTsxText(value: unknown): string {
  if (typeof value === 'string') return value;
  let out = '';
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record.text === 'string') {
      if (record.lineBreakBefore === true && out !== '' && !out.endsWith('\n')) out += '\n';
      out += record.text;
    }
    for (const [key, child] of Object.entries(record)) if (key !== 'text' && key !== 'props') visit(child);
  };
  visit(value);
  if (out.trim() !== '') return out;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[a prompt-tsx result Arbor cannot show]';
  }
}

/**
 * `promise`, or a rejection with the signal's reason (an AbortError) as soon as `signal` aborts: a tool
 * that ignores its cancellation token does not keep a stopped run waiting.
 */
export function abortable<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
