import type { PromptError } from '../errors';
import { gitBlobId, sha256Hex } from '../hashes';
import type { MessageTemplate, PromptKind, PromptOutputSpec, PromptTemplate, RagConfigEntry, ValidationLevel } from './libraryTypes';
import type { PromptDiagnostic, PromptParam, SourceOffset } from '../libraryFiles/fileTypes';
import type { PromptModelSettings, RagConfig } from '../promptContracts';
import { YamlSource } from '../libraryFiles/yamlSource';

/** File extensions the library reads, in the order that wins when two files share a name. */
export const PROMPT_EXTENSIONS = ['.md', '.hbs', '.yaml', '.yml', '.json'] as const;

/** What `parsePromptFile` needs to know about one file. */
export interface PromptFileInput {
  name: string;
  kind: PromptKind;
  /** Relative to the prompts folder, `/` separators. */
  path: string;
  absolutePath: string;
  bytes: Uint8Array;
}

/** A parsed file: the prompt when it could be read, and every problem found in it. */
export interface ParsedPromptFile {
  prompt?: PromptTemplate;
  diagnostics: PromptDiagnostic[];
  /** The typed error to throw when the prompt is asked for, when the file was refused (e.g. a limit). */
  error?: PromptError;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads one prompt file in either format: Markdown/Handlebars with YAML front matter, or a dataknobs
 * `.yaml`/`.yml`/`.json` file (read with the YAML parser, which also accepts JSON and gives positions).
 */
export function parsePromptFile(input: PromptFileInput): ParsedPromptFile {
  const decoded = decodeUtf8(input.bytes, input.path);
  if ('problem' in decoded) return { diagnostics: [decoded.problem] };
  const text = decoded.text.replace(/^\uFEFF/, '');
  const markdown = /\.(md|hbs)$/i.test(input.path);
  const diagnostics: PromptDiagnostic[] = [];
  let source: YamlSource | undefined;
  let body = '';
  let bodyOffset: SourceOffset = { line: 1, column: 0 };

  if (markdown) {
    const split = splitFrontMatter(text);
    if (split.error) {
      diagnostics.push({ file: input.path, line: 1, column: 1, severity: 'error', message: split.error });
      return { diagnostics };
    }
    body = split.body;
    bodyOffset = { line: split.bodyLine, column: 0 };
    if (split.frontMatter !== undefined) source = new YamlSource(split.frontMatter, input.path, 1);
  } else {
    source = new YamlSource(text, input.path);
  }

  if (source?.errors.length) return { diagnostics: source.errors };
  const raw = source?.data ?? {};
  const reader = new FieldReader(input.path, source, diagnostics);
  const data: Obj = isObj(raw) ? raw : Array.isArray(raw) ? { __list: raw } : {};
  if (markdown && Array.isArray(raw)) {
    reader.problem([], 'the front matter is a list; it must be a mapping of fields (description, params, ...)');
    return { diagnostics };
  }
  if (!isObj(raw) && !Array.isArray(raw) && raw !== null && source && source.text.trim() !== '') {
    reader.problem([], 'expected a mapping of fields (template, defaults, ...) at the top of the file');
    return { diagnostics };
  }

  let template = body;
  let templateOffset = bodyOffset;
  if (!markdown) {
    const t = data.template;
    if (typeof t === 'string') {
      template = t;
      templateOffset = source!.textOffset(['template']);
    } else if (t !== undefined) {
      reader.problem(['template'], '`template` must be a string');
    } else if (input.kind === 'system' || input.kind === 'user' || input.kind === 'partial') {
      reader.problem([], 'a dataknobs prompt file needs a `template` field');
    }
  }

  const bytes = input.bytes;
  const prompt: PromptTemplate = {
    name: input.name,
    kind: input.kind,
    path: input.path,
    absolutePath: input.absolutePath,
    sha256: sha256Hex(bytes),
    gitBlobId: gitBlobId(bytes),
    description: reader.description(data),
    template,
    templateOffset,
    conditionalSections: !markdown || data.conditionalSections === true,
    params: reader.params(data),
    validation: reader.validation(data),
    rag: reader.ragEntries(data),
    settings: reader.settings(data),
    metadata: isObj(data.metadata) ? data.metadata : undefined,
  };
  const outputSpec = reader.output(data);
  if (outputSpec) prompt.outputSpec = outputSpec;
  if (input.kind === 'messages') prompt.messages = reader.messages(data);
  if (input.kind === 'rag') prompt.ragConfigs = reader.ragFile(data);
  return { prompt, diagnostics };
}

/** Decodes strict UTF-8; invalid bytes are a diagnostic at the line of the first one, not replacement characters. */
function decodeUtf8(bytes: Uint8Array, file: string): { text: string } | { problem: PromptDiagnostic } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    const loose = new TextDecoder('utf-8').decode(bytes);
    const bad = loose.indexOf('\uFFFD');
    const before = loose.slice(0, Math.max(0, bad));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return { problem: { file, line, column, severity: 'error', message: 'the file is not valid UTF-8 (first bad byte here): save it as UTF-8' } };
  }
}

/**
 * The prompts-folder path of an `output:` schema file written relative to the prompt `promptPath`: it must
 * end in `.schema.json` and stay inside the prompts folder.
 */
export function schemaFilePath(promptPath: string, written: string): { path: string } | { problem: string } {
  const w = written.trim().replace(/\\/g, '/');
  if (!/\.schema\.json$/i.test(w)) return { problem: `output schema file "${written}" must end in .schema.json (or write the schema inline under \`output:\`)` };
  if (w.startsWith('/') || /^[A-Za-z]:/.test(w)) return { problem: `output schema file "${written}" must be a path relative to the prompt, inside the prompts folder` };
  const parts = promptPath.split('/').slice(0, -1);
  for (const part of w.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return { problem: `output schema file "${written}" leads outside the prompts folder; keep it beside the prompt` };
      parts.pop();
    } else parts.push(part);
  }
  return { path: parts.join('/') };
}

/** Splits `---` front matter from the body; the body line is where the template starts in the file. */
export function splitFrontMatter(text: string): { frontMatter?: string; body: string; bodyLine: number; error?: string } {
  const lines = text.split('\n');
  if (lines[0].replace(/\r$/, '') !== '---') return { body: text, bodyLine: 1 };
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, '');
    if (l === '---' || l === '...') {
      return { frontMatter: lines.slice(1, i).join('\n'), body: lines.slice(i + 1).join('\n'), bodyLine: i + 2 };
    }
  }
  return { body: '', bodyLine: 1, error: 'front matter opened with `---` on line 1 is never closed: add a `---` line after it' };
}

/** Reads the known fields of a prompt file, reporting each wrong one at its own position. */
class FieldReader {
  constructor(
    private readonly file: string,
    private readonly source: YamlSource | undefined,
    private readonly out: PromptDiagnostic[],
  ) {}

  problem(path: Array<string | number>, message: string, severity: 'error' | 'warning' = 'error'): void {
    const pos = this.source?.positionOf(path) ?? { line: 1, column: 1 };
    this.out.push({ file: this.file, line: pos.line, column: pos.column, severity, message });
  }

  description(d: Obj): string | undefined {
    if (typeof d.description === 'string') return d.description;
    const meta = d.metadata;
    return isObj(meta) && typeof meta.description === 'string' ? meta.description : undefined;
  }

  params(d: Obj): PromptParam[] {
    const byName = new Map<string, PromptParam>();
    const get = (name: string) => {
      let p = byName.get(name);
      if (!p) byName.set(name, (p = { name }));
      return p;
    };
    if (isObj(d.params)) {
      for (const [name, spec] of Object.entries(d.params)) {
        const p = get(name);
        if (isObj(spec)) {
          if ('default' in spec) p.default = spec.default;
          if (spec.required !== undefined) p.required = spec.required === true;
          if (typeof spec.description === 'string') p.description = spec.description;
        } else if (spec !== null) {
          p.default = spec;
        }
      }
    } else if (d.params !== undefined) {
      this.problem(['params'], '`params` must be a mapping of name to {default, required, description}');
    }
    if (isObj(d.defaults)) {
      for (const [name, value] of Object.entries(d.defaults)) get(name).default = value;
    } else if (d.defaults !== undefined) {
      this.problem(['defaults'], '`defaults` must be a mapping of parameter name to value');
    }
    const v = d.validation;
    if (isObj(v)) {
      for (const key of ['required_params', 'requiredParams']) {
        const list = v[key];
        if (Array.isArray(list)) for (const name of list) get(String(name)).required = true;
      }
    }
    return [...byName.values()];
  }

  /**
   * `output:` (an inline JSON Schema, or the path of a `.schema.json` file beside the prompt, never outside
   * the prompts folder) and `retries:`. The schema itself is read and compiled by the library.
   */
  output(d: Obj): PromptOutputSpec | undefined {
    const o = d.output;
    const r = d.retries;
    if (o === undefined || o === null) {
      if (r !== undefined) this.problem(['retries'], '`retries` applies only to a prompt with an `output:` schema', 'warning');
      return undefined;
    }
    const pos = this.source?.positionOf(['output']) ?? { line: 1, column: 1 };
    const spec: PromptOutputSpec = { line: pos.line, column: pos.column };
    if (isObj(o)) spec.schema = o;
    else if (typeof o === 'string') {
      const file = schemaFilePath(this.file, o);
      if ('problem' in file) {
        this.problem(['output'], file.problem);
        return undefined;
      }
      spec.file = file.path;
    } else {
      this.problem(['output'], '`output` must be a JSON Schema (a mapping such as `type: object` with `properties:`) or the path of a `.schema.json` file beside the prompt');
      return undefined;
    }
    if (r !== undefined) {
      if (typeof r === 'number' && Number.isInteger(r) && r >= 0 && r <= 10) spec.retries = r;
      else this.problem(['retries'], '`retries` must be a whole number from 0 to 10');
    }
    return spec;
  }

  validation(d: Obj): ValidationLevel | undefined {
    const v = d.validation;
    const level = isObj(v) ? v.level : typeof v === 'string' ? v : undefined;
    if (level === undefined) return undefined;
    const norm = String(level).toLowerCase();
    if (norm === 'error' || norm === 'warn' || norm === 'ignore') return norm;
    if (norm === 'warning') return 'warn';
    this.problem(isObj(v) ? ['validation', 'level'] : ['validation'], `validation level "${String(level)}" is not one of error, warn, ignore`);
    return undefined;
  }

  settings(d: Obj): PromptModelSettings {
    const s: PromptModelSettings = {};
    if (typeof d.model === 'string') s.model = d.model;
    if (typeof d.temperature === 'number') s.temperature = d.temperature;
    else if (d.temperature !== undefined) this.problem(['temperature'], '`temperature` must be a number');
    const max = d.maxTokens ?? d.max_tokens;
    if (typeof max === 'number' && Number.isInteger(max) && max > 0) s.maxTokens = max;
    else if (max !== undefined) this.problem([d.maxTokens !== undefined ? 'maxTokens' : 'max_tokens'], '`maxTokens` must be a positive whole number');
    return s;
  }

  ragEntries(d: Obj): RagConfigEntry[] {
    const entries: RagConfigEntry[] = [];
    for (const key of ['rag', 'rag_configs', 'ragConfigs']) {
      const list = d[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        this.problem([key], `\`${key}\` must be a list of retrieval configs or names of prompts/rag/ configs`);
        continue;
      }
      list.forEach((item, i) => {
        if (typeof item === 'string') entries.push({ ref: item });
        else if (isObj(item) && typeof item.ref === 'string' && item.adapter === undefined && item.adapter_name === undefined) {
          entries.push({ ref: item.ref });
        } else {
          const cfg = this.ragConfig(item, [key, i]);
          if (cfg) entries.push(cfg);
        }
      });
    }
    for (const key of ['rag_config_refs', 'ragConfigRefs']) {
      const list = d[key];
      if (Array.isArray(list)) list.forEach((ref) => entries.push({ ref: String(ref) }));
      else if (list !== undefined) this.problem([key], `\`${key}\` must be a list of names of prompts/rag/ configs`);
    }
    return entries;
  }

  /** A rag/ file holds one config, a list of them, or `configs: [...]`. */
  ragFile(d: Obj): RagConfig[] {
    if (Array.isArray(d.__list)) {
      return (d.__list as unknown[]).flatMap((c, i) => this.ragConfig(c, [i]) ?? []);
    }
    const list = d.configs ?? d.rag_configs;
    if (Array.isArray(list)) {
      const key = d.configs !== undefined ? 'configs' : 'rag_configs';
      return list.flatMap((c, i) => this.ragConfig(c, [key, i]) ?? []);
    }
    const one = this.ragConfig(d, []);
    return one ? [one] : [];
  }

  ragConfig(item: unknown, path: Array<string | number>): RagConfig | undefined {
    if (!isObj(item)) {
      this.problem(path, 'a retrieval config must be a mapping with `adapter` and `query`');
      return undefined;
    }
    const adapter = item.adapter ?? item.adapter_name;
    const query = item.query;
    if (typeof adapter !== 'string' || !adapter) {
      this.problem(path, 'this retrieval config has no `adapter` (e.g. `adapter: workspace`)');
      return undefined;
    }
    if (typeof query !== 'string') {
      this.problem(path, 'this retrieval config has no `query` (a template over the params, e.g. `query: "{{code}}"`)');
      return undefined;
    }
    const cfg: RagConfig = { adapter, query };
    if (item.k !== undefined) {
      if (typeof item.k === 'number' && Number.isInteger(item.k) && item.k > 0) cfg.k = item.k;
      else this.problem([...path, 'k'], '`k` must be a positive whole number');
    }
    if (typeof item.placeholder === 'string') cfg.placeholder = item.placeholder;
    if (typeof item.header === 'string') cfg.header = item.header;
    const itemTemplate = item.itemTemplate ?? item.item_template;
    if (typeof itemTemplate === 'string') cfg.itemTemplate = itemTemplate;
    if (isObj(item.filters)) cfg.filters = item.filters;
    return cfg;
  }

  messages(d: Obj): MessageTemplate[] {
    const listKey = Array.isArray(d.__list) ? undefined : 'messages';
    const list = listKey ? d.messages : d.__list;
    if (!Array.isArray(list)) {
      this.problem([], 'a messages prompt needs a list of {role, content} (top level or under `messages`)');
      return [];
    }
    const out: MessageTemplate[] = [];
    list.forEach((m, i) => {
      const path = listKey ? [listKey, i] : [i];
      if (!isObj(m) || typeof m.content !== 'string') {
        this.problem(path, 'each message needs a `role` and a string `content`');
        return;
      }
      const role = String(m.role ?? '');
      if (role !== 'system' && role !== 'user' && role !== 'assistant') {
        this.problem([...path, 'role'], `role "${role}" is not one of system, user, assistant`);
        return;
      }
      const offset = this.source?.textOffset([...path, 'content']) ?? { line: 1, column: 0 };
      out.push({ role, content: m.content, offset });
    });
    return out;
  }
}
