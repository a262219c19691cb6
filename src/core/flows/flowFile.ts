/**
 * Reads one flow file (`prompts/flows/<name>.yaml`) into a `FlowDefinition`, reporting every problem at its
 * own line and column: YAML errors, missing or wrong fields, rule expressions that do not parse or reach
 * outside memory, inline templates that are not valid, JSON Schemas Ajv refuses, unknown states, and (as
 * warnings) states no transition reaches. Prompt names are checked against the library in `flowChecks.ts`.
 */
import Ajv from 'ajv';
import { InvalidArgumentError, PromptError } from '../errors';
import { checkSchemaSafety, safeAjvOptions } from '../jsonSchema/safeAjv';
import { gitBlobId, sha256Hex } from '../hashes';
import type { PromptDiagnostic, PromptParam } from '../libraryFiles/fileTypes';
import { prepareTemplate } from '../templates/templateEngine';
import { YamlSource } from '../libraryFiles/yamlSource';
import { compileExpression, type CompiledExpression } from './flowExpressions';
import { DEFAULT_FLOW_MAX_STEPS, type FlowConductor, type FlowDefinition, type FlowState, type FlowTemplate, type FlowTransition } from './flowTypes';
import { FlowExpressionError } from './flowErrors';
import { checkFlowGraph } from './flowGraph';

type Obj = Record<string, unknown>;
type Path = Array<string | number>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_FLOW_STEPS = 1000;
const STATE_FIELDS: Record<FlowState['type'], string[]> = {
  agent: ['system', 'user', 'systemTemplate', 'userTemplate', 'tools', 'output', 'result', 'model'],
  tool: ['tool', 'args', 'result'],
  finish: ['template', 'prompt'],
};
const COMMON_FIELDS = ['type', 'description', 'next', 'choices', 'set'];

/** A parsed flow file: the flow when it could be read, and every problem found in it. */
export interface ParsedFlowFile {
  /** The flow, when the file has no error. */
  flow?: FlowDefinition;
  /** What could be read of the flow even with errors (for further checks, never to run). */
  draft?: FlowDefinition;
  diagnostics: PromptDiagnostic[];
  /** The file's git blob id, for version chips like prompts'. */
  gitBlobId?: string;
}

/** Parses a flow file's bytes; `path` is relative to the prompts folder, `name` the file name without extension. */
export function parseFlowFile(input: { path: string; name: string; bytes: Uint8Array }): ParsedFlowFile {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(input.bytes).replace(/^\uFEFF/, '');
  } catch {
    return { diagnostics: [{ file: input.path, line: 1, column: 1, severity: 'error', message: 'the file is not valid UTF-8: save it as UTF-8' }] };
  }
  const source = new YamlSource(text, input.path);
  if (source.errors.length) return { diagnostics: source.errors };
  const reader = new FlowReader(input.path, source);
  const flow = reader.read(source.data, input.name, sha256Hex(input.bytes));
  return { ...(flow && !reader.failed ? { flow } : {}), ...(flow ? { draft: flow } : {}), diagnostics: reader.out, gitBlobId: gitBlobId(input.bytes) };
}

class FlowReader {
  readonly out: PromptDiagnostic[] = [];
  failed = false;
  private readonly ajv = new Ajv(safeAjvOptions({ strict: false, allErrors: false }));

  constructor(
    private readonly file: string,
    private readonly source: YamlSource,
  ) {}

  problem(path: Path, message: string, severity: 'error' | 'warning' = 'error', shift = 0): void {
    const pos = this.source.positionOf(path);
    if (severity === 'error') this.failed = true;
    this.out.push({ file: this.file, line: pos.line, column: pos.column + shift, severity, message });
  }

  read(data: unknown, fileName: string, sha256: string): FlowDefinition | undefined {
    if (!isObj(data)) {
      this.problem([], 'a flow file is a mapping with `start` and `states` (see README "Flows")');
      return undefined;
    }
    for (const key of Object.keys(data)) {
      if (!['name', 'description', 'inputs', 'memory', 'start', 'maxSteps', 'conductor', 'states'].includes(key)) this.problem([key], `unknown field "${key}" (a flow has name, description, inputs, memory, start, maxSteps, conductor, states)`, 'warning');
    }
    const name = typeof data.name === 'string' && data.name.trim() ? data.name.trim() : fileName;
    if (data.name !== undefined && typeof data.name !== 'string') this.problem(['name'], '`name` must be a string');
    let maxSteps = DEFAULT_FLOW_MAX_STEPS;
    if (data.maxSteps !== undefined) {
      if (typeof data.maxSteps === 'number' && Number.isInteger(data.maxSteps) && data.maxSteps > 0 && data.maxSteps <= MAX_FLOW_STEPS) maxSteps = data.maxSteps;
      else this.problem(['maxSteps'], `\`maxSteps\` must be a whole number from 1 to ${MAX_FLOW_STEPS}`);
    }
    const memory = data.memory === undefined ? {} : isObj(data.memory) ? structuredClone(data.memory) : (this.problem(['memory'], '`memory` must be a mapping of key to starting value'), {});
    const states = new Map<string, FlowState>();
    if (!isObj(data.states) || Object.keys(data.states).length === 0) {
      this.problem(data.states === undefined ? [] : ['states'], 'a flow needs `states`: a mapping of state name to {type: agent | tool | finish, ...}');
    } else {
      for (const [stateName, spec] of Object.entries(data.states)) {
        const state = this.state(stateName, spec);
        if (state) states.set(stateName, state);
      }
    }
    const start = typeof data.start === 'string' ? data.start : '';
    if (typeof data.start !== 'string') this.problem(data.start === undefined ? [] : ['start'], 'a flow needs `start`: the name of its first state');
    else if (isObj(data.states) && !Object.hasOwn(data.states, start)) this.problem(['start'], `start state "${start}" is not one of the states (${Object.keys(data.states).join(', ')})`);
    const conductor = this.conductor(data.conductor);
    const flow: FlowDefinition = {
      name,
      path: this.file,
      sha256,
      inputs: this.inputs(data.inputs),
      memory,
      start,
      maxSteps,
      states,
      ...(typeof data.description === 'string' ? { description: data.description } : {}),
      ...(conductor ? { conductor } : {}),
    };
    if (states.size > 0) {
      for (const p of checkFlowGraph(flow)) this.problem(p.path, p.message, p.severity);
    }
    return flow;
  }

  private inputs(v: unknown): PromptParam[] {
    if (v === undefined || v === null) return [];
    if (!isObj(v)) {
      this.problem(['inputs'], '`inputs` must be a mapping of name to {default, required, description}, as a prompt\'s `params`');
      return [];
    }
    return Object.entries(v).map(([name, spec]) => {
      const p: PromptParam = { name };
      if (isObj(spec)) {
        if ('default' in spec) p.default = spec.default;
        if (spec.required !== undefined) p.required = spec.required === true;
        if (typeof spec.description === 'string') p.description = spec.description;
      } else if (spec !== null) p.default = spec;
      return p;
    });
  }

  private conductor(v: unknown): FlowConductor | undefined {
    if (v === undefined || v === false || v === null) return undefined;
    if (v === true) return {};
    if (!isObj(v)) {
      this.problem(['conductor'], '`conductor` must be true (Arbor\'s own question) or a mapping with `user` or `userTemplate` (and optional `system` or `systemTemplate`)');
      return undefined;
    }
    const user = this.template(['conductor'], v, 'user', 'userTemplate');
    const system = this.template(['conductor'], v, 'system', 'systemTemplate');
    return { ...(user ? { user } : {}), ...(system ? { system } : {}) };
  }

  /** A template given as a library name (`nameKey`) or inline (`inlineKey`), checked for syntax. */
  private template(at: Path, spec: Obj, nameKey: string, inlineKey: string): FlowTemplate | undefined {
    const byName = spec[nameKey];
    const inline = spec[inlineKey];
    if (byName !== undefined && inline !== undefined) this.problem([...at, inlineKey], `give \`${nameKey}\` (a prompt of the library) or \`${inlineKey}\` (inline text), not both`);
    if (byName !== undefined) {
      if (typeof byName === 'string' && byName.trim()) return { prompt: byName.trim(), ...this.source.positionOf([...at, nameKey]) };
      this.problem([...at, nameKey], `\`${nameKey}\` must be the name of a prompt of the library`);
      return undefined;
    }
    if (inline === undefined) return undefined;
    if (typeof inline !== 'string') {
      this.problem([...at, inlineKey], `\`${inlineKey}\` must be a template string`);
      return undefined;
    }
    const offset = this.source.textOffset([...at, inlineKey]);
    this.checkTemplate(inline, offset);
    return { inline, offset };
  }

  private checkTemplate(text: string, offset: { line: number; column: number }): boolean {
    try {
      prepareTemplate(text, this.file, offset, false);
      return true;
    } catch (err) {
      if (!(err instanceof PromptError)) throw err;
      this.failed = true;
      this.out.push({ file: this.file, line: err.line ?? offset.line, column: err.column ?? 1, severity: 'error', message: err.message.replace(/^[^\s:]+:\d+:\d+: /, '') });
      return false;
    }
  }

  private expression(path: Path, text: unknown): CompiledExpression | undefined {
    if (typeof text !== 'string') {
      this.problem(path, 'an expression must be a string, e.g. "verdict == \'ok\'" (quote it in YAML)');
      return undefined;
    }
    try {
      return compileExpression(text);
    } catch (err) {
      if (!(err instanceof FlowExpressionError)) throw err;
      const offset = this.source.textOffset(path);
      const pos = this.source.positionOf(path);
      this.failed = true;
      // Point into the expression when the parser says where (a one-line value).
      const column = err.index !== undefined && offset.line === pos.line ? offset.column + err.index + 1 : pos.column;
      this.out.push({ file: this.file, line: pos.line, column, severity: 'error', message: err.message });
      return undefined;
    }
  }

  private state(name: string, spec: unknown): FlowState | undefined {
    const at: Path = ['states', name];
    if (!isObj(spec)) {
      this.problem(at, `state "${name}" must be a mapping with a \`type\` (agent, tool or finish)`);
      return undefined;
    }
    const type = spec.type;
    if (type !== 'agent' && type !== 'tool' && type !== 'finish') {
      this.problem(spec.type === undefined ? at : [...at, 'type'], `state "${name}" needs \`type: agent\`, \`type: tool\` or \`type: finish\``);
      return undefined;
    }
    for (const key of Object.keys(spec)) {
      if (!COMMON_FIELDS.includes(key) && !STATE_FIELDS[type].includes(key)) {
        this.problem([...at, key], `unknown field "${key}" for a ${type} state (it takes ${[...STATE_FIELDS[type], ...COMMON_FIELDS.slice(1)].join(', ')})`, 'warning');
      }
    }
    const pos = this.source.positionOf(at);
    const base = { name, next: this.transitions(at, spec.next), set: this.sets(at, spec.set), line: pos.line, column: pos.column, ...this.choices(at, spec.choices) };
    if (type === 'finish') {
      if (spec.next !== undefined) this.problem([...at, 'next'], 'a finish state ends the flow: remove `next`', 'warning');
      const template = this.template(at, spec, 'prompt', 'template');
      if (!template) {
        this.problem(at, `finish state "${name}" needs \`template\` (the final answer, a template over the memory) or \`prompt\` (a user prompt of the library)`);
        return undefined;
      }
      return { ...base, type, template };
    }
    const result = this.resultKey(at, spec.result);
    if (type === 'tool') {
      if (typeof spec.tool !== 'string' || !TOOL_NAME.test(spec.tool)) {
        this.problem(spec.tool === undefined ? at : [...at, 'tool'], `tool state "${name}" needs \`tool\`: the name of a tool (letters, digits, _ and -)`);
        return undefined;
      }
      const args = spec.args === undefined ? {} : isObj(spec.args) ? spec.args : (this.problem([...at, 'args'], '`args` must be a mapping of argument name to value (strings are templates over the memory)'), {});
      this.checkArgs([...at, 'args'], args);
      return { ...base, type, tool: spec.tool, args: structuredClone(args), result };
    }
    const user = this.template(at, spec, 'user', 'userTemplate');
    if (!user) {
      this.problem(at, `agent state "${name}" needs \`user\` (a user prompt of the library) or \`userTemplate\` (inline text over the memory)`);
      return undefined;
    }
    const system = this.template(at, spec, 'system', 'systemTemplate');
    const tools = spec.tools === undefined ? [] : Array.isArray(spec.tools) && spec.tools.every((t) => typeof t === 'string') ? (spec.tools as string[]) : (this.problem([...at, 'tools'], '`tools` must be a list of tool names'), []);
    const output = spec.output === undefined ? undefined : this.schema([...at, 'output'], spec.output);
    if (spec.model !== undefined && typeof spec.model !== 'string') this.problem([...at, 'model'], '`model` must be a model name');
    return {
      ...base,
      type,
      user,
      tools,
      result,
      ...(system ? { system } : {}),
      ...(output ? { output } : {}),
      ...(typeof spec.model === 'string' ? { model: spec.model } : {}),
    };
  }

  private resultKey(at: Path, v: unknown): string {
    if (v === undefined) return 'result';
    if (typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v) && v !== '__proto__' && v !== 'constructor' && v !== 'prototype') return v;
    this.problem([...at, 'result'], '`result` must be a memory key: letters, digits and _, not starting with a digit');
    return 'result';
  }

  private checkArgs(at: Path, args: Obj): void {
    const visit = (v: unknown, path: Path) => {
      if (typeof v === 'string') {
        if (v.includes('{{')) this.checkTemplate(v, this.source.textOffset(path));
      } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...path, i]));
      else if (isObj(v)) for (const [k, x] of Object.entries(v)) visit(x, [...path, k]);
    };
    visit(args, at);
  }

  private schema(at: Path, v: unknown): Record<string, unknown> | undefined {
    if (!isObj(v)) {
      this.problem(at, '`output` must be a JSON Schema (a mapping such as {type: object, properties: {...}})');
      return undefined;
    }
    if (v.type !== 'object') this.problem(at, '`output` must describe an object (`type: object`): its fields are written into the memory');
    try {
      checkSchemaSafety(v);
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      this.problem(at, `\`output\` is refused: ${err.message}`);
      return undefined;
    }
    try {
      this.ajv.compile(v);
    } catch (err) {
      this.problem(at, `\`output\` is not a valid JSON Schema: ${(err as Error).message}`);
      return undefined;
    }
    return structuredClone(v);
  }

  private transitions(at: Path, v: unknown): FlowTransition[] {
    if (v === undefined) return [];
    if (typeof v === 'string') return [{ to: v }];
    if (!Array.isArray(v)) {
      this.problem([...at, 'next'], '`next` must be a state name or a list of {when, to} rules (the first that holds wins; no `when` always holds)');
      return [];
    }
    const out: FlowTransition[] = [];
    v.forEach((rule, i) => {
      if (typeof rule === 'string') return out.push({ to: rule });
      if (!isObj(rule) || typeof rule.to !== 'string') return this.problem([...at, 'next', i], 'each rule is {when: "<expression>", to: <state>} (or just {to: <state>})');
      const t: FlowTransition = { to: rule.to };
      if (rule.when !== undefined) {
        const when = this.expression([...at, 'next', i, 'when'], rule.when);
        if (when) t.when = when;
      }
      out.push(t);
    });
    return out;
  }

  private choices(at: Path, v: unknown): { choices?: string[] } {
    if (v === undefined) return {};
    if (Array.isArray(v) && v.length > 0 && v.every((c) => typeof c === 'string')) return { choices: v as string[] };
    this.problem([...at, 'choices'], '`choices` must be a list of state names the conductor may pick');
    return {};
  }

  private sets(at: Path, v: unknown): Array<{ key: string; value: CompiledExpression }> {
    if (v === undefined) return [];
    if (!isObj(v)) {
      this.problem([...at, 'set'], '`set` must be a mapping of memory key to expression, e.g. {round: "round + 1"}');
      return [];
    }
    const out: Array<{ key: string; value: CompiledExpression }> = [];
    for (const [key, expr] of Object.entries(v)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || key === '__proto__' || key === 'constructor' || key === 'prototype') {
        this.problem([...at, 'set'], `"${key}" cannot be a memory key: use letters, digits and _, not starting with a digit`);
        continue;
      }
      const text = typeof expr === 'string' ? expr : JSON.stringify(expr);
      const value = this.expression([...at, 'set', key], typeof expr === 'string' ? expr : text);
      if (value) out.push({ key, value });
    }
    return out;
  }
}
