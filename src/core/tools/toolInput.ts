/**
 * A tool call's arguments, from the JSON text the model wrote to an input its tool can trust: parsed,
 * then checked against the tool's JSON Schema with Ajv (defaults filled in). What fails becomes a text
 * for the model that says exactly what to fix, so it can call again instead of giving up. Ajv is loaded
 * and the schemas compiled on first use, so a window that never runs a tool never pays for them.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { InvalidArgumentError } from '../errors';
import { checkSchemaSafety, safeAjvOptions } from '../jsonSchema/safeAjv';
import { valueDepthProblem } from '../jsonSchema/schemaLimits';
import type { JsonSchema } from './tool';

/** Most schema characters quoted back to the model in an error. */
const SCHEMA_QUOTE_CHARS = 2000;
/** Most problems listed for one call; the rest are counted. */
const MAX_PROBLEMS = 8;

type Compiled = { validate: ValidateFunction; schemaText: string } | { error: string };

/** The module's own function, whether the loader hands over the CommonJS exports or an ES module wrapper. */
function defaultExport<T>(module: { default: T }): T {
  const inner = module.default as T & { default?: T };
  return inner.default ?? inner;
}

/** Ajv with the formats (`date-time`, `uri`, `email`…) and RE2 for patterns, loaded when the first schema is compiled. */
async function newAjv() {
  const [ajvModule, formatsModule] = await Promise.all([import('ajv'), import('ajv-formats')]);
  const Ajv = defaultExport(ajvModule);
  const ajv = new Ajv(safeAjvOptions({ allErrors: true, strict: false, useDefaults: true, logger: false as const }));
  defaultExport(formatsModule)(ajv);
  return ajv;
}

/** Checks the inputs of a set of tools against their schemas, compiled once, on first use. */
export class ToolInputValidator {
  private readonly schemas = new Map<string, JsonSchema>();
  private compiled: Promise<Map<string, Compiled>> | undefined;

  /** Takes `schema` for `toolName`; a schema that is not an object schema is the tool author's bug and throws. */
  add(toolName: string, schema: JsonSchema): void {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) {
      throw new InvalidArgumentError(`Tool "${toolName}" needs an inputSchema object (a JSON Schema such as { "type": "object", "properties": {…} }).`);
    }
    if (schema.type !== 'object') {
      throw new InvalidArgumentError(`Tool "${toolName}": inputSchema must describe an object ("type": "object"), which is what models send as arguments.`);
    }
    this.schemas.set(toolName, structuredClone(schema));
    this.compiled = undefined;
  }

  /**
   * Why Arbor will not use `schema` (too large or deep, a `$ref` loop, a pattern that needs backtracking),
   * as a sentence naming `toolName`, or `undefined` when it may. Synchronous, so a tool can be left out
   * before it is offered to a model.
   */
  static refusal(toolName: string, schema: JsonSchema): string | undefined {
    try {
      checkSchemaSafety(schema);
      return undefined;
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      return `Tool "${toolName}" is not offered: its inputSchema is refused: ${error.message}.`;
    }
  }

  /** Compiles every schema now; rejects with an `InvalidArgumentError` naming each tool whose schema is invalid. */
  async ready(): Promise<void> {
    const broken = [...(await this.compile()).values()].filter((c): c is { error: string } => 'error' in c);
    if (broken.length) throw new InvalidArgumentError(broken.map((b) => b.error).join('\n'));
  }

  /**
   * The input of a call to `toolName` from the arguments text, or the text telling the model what is
   * wrong. Empty arguments count as `{}` (some models send nothing for a tool without parameters).
   */
  async check(toolName: string, argumentsText: string): Promise<{ ok: true; input: Record<string, unknown> } | { ok: false; error: string }> {
    const entry = (await this.compile()).get(toolName);
    if (!entry) return { ok: false, error: `There is no tool named "${toolName}".` };
    if ('error' in entry) return { ok: false, error: `${entry.error} It cannot be used until its author fixes it; tell the user.` };
    let input: unknown;
    try {
      input = argumentsText.trim() === '' ? {} : JSON.parse(argumentsText);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        error: `The arguments of ${toolName} are not valid JSON (${why}). Call ${toolName} again with its arguments as one JSON object matching this schema: ${quote(entry.schemaText)}`,
      };
    }
    const tooDeep = valueDepthProblem(input);
    if (tooDeep) return { ok: false, error: `The arguments of ${toolName} do not match its input schema:\n- the arguments ${tooDeep}\nCall ${toolName} again with corrected arguments.` };
    if (entry.validate(input)) return { ok: true, input: input as Record<string, unknown> };
    const problems = [...new Set((entry.validate.errors ?? []).map((e) => describeProblem(e, input)))];
    const listed = problems.slice(0, MAX_PROBLEMS).map((p) => `- ${p}`);
    if (problems.length > MAX_PROBLEMS) listed.push(`- and ${problems.length - MAX_PROBLEMS} more`);
    return {
      ok: false,
      error: [
        `The arguments of ${toolName} do not match its input schema:`,
        ...listed,
        `Call ${toolName} again with corrected arguments. Its schema: ${quote(entry.schemaText)}`,
      ].join('\n'),
    };
  }

  private compile(): Promise<Map<string, Compiled>> {
    this.compiled ??= newAjv().then((ajv) => {
      const out = new Map<string, Compiled>();
      for (const [name, schema] of this.schemas) {
        try {
          checkSchemaSafety(schema);
          out.set(name, { validate: ajv.compile(schema), schemaText: JSON.stringify(schema) });
        } catch (error) {
          out.set(name, { error: `Tool "${name}" has an invalid inputSchema: ${error instanceof Error ? error.message : String(error)}.` });
        }
      }
      return out;
    });
    return this.compiled;
  }
}

function quote(schemaText: string): string {
  return schemaText.length <= SCHEMA_QUOTE_CHARS ? schemaText : `${schemaText.slice(0, SCHEMA_QUOTE_CHARS)}… (cut)`;
}

/** `/files/0/path` → `files[0].path`, the way a person (or a model) names a field. */
function fieldName(pointer: string, child?: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

function valueAt(input: unknown, pointer: string): unknown {
  let value = input;
  for (const part of pointer.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function describeProblem(e: ErrorObject, input: unknown): string {
  const field = fieldName(e.instancePath);
  const subject = field ? `"${field}"` : 'the arguments';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `"${fieldName(e.instancePath, String(p.missingProperty))}" is required but missing`;
    case 'additionalProperties':
      return `"${fieldName(e.instancePath, String(p.additionalProperty))}" is not a field of this tool; leave it out`;
    case 'type':
      return `${subject} must be ${String(p.type)}, not ${kindOf(valueAt(input, e.instancePath))}`;
    case 'enum':
      return `${subject} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${subject} must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${subject} ${e.message ?? `fails "${e.keyword}"`}`;
  }
}
