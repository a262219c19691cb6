/**
 * Reading the YAML front matter of other tools' prompt files: split it from the body, parse it with
 * positions, and read each known field with a type check that reports a wrong one at its own line.
 */
import { posix as posixPath } from 'node:path';
import type { PromptDiagnostic } from '../../libraryFiles/fileTypes';
import type { ForeignParam, ForeignSegment } from './foreignTypes';
import { splitFrontMatter } from '../promptFile';
import { YamlSource } from '../../libraryFiles/yamlSource';

/** A prompt file's front matter as read: its fields (empty when there is none), the body and where the body starts. */
export interface FrontMatter {
  fields: Record<string, unknown>;
  body: string;
  /** File line of the body's first line, 1-based. */
  bodyLine: number;
  diagnostics: PromptDiagnostic[];
  source?: YamlSource;
}

/**
 * Splits and parses front matter. `legacyPreamble` also takes Continue's older form, a YAML preamble
 * with no opening `---` that ends at the first `---` line. `rawKeys` are top-level keys whose one-line
 * value is read as text whatever it looks like: Claude Code documents `argument-hint: [pr] [priority]`,
 * which is not valid YAML, and reads it as written.
 */
export function readFrontMatter(file: string, text: string, legacyPreamble = false, rawKeys: readonly string[] = []): FrontMatter {
  const diagnostics: PromptDiagnostic[] = [];
  let yaml: string | undefined;
  let shift = 1;
  let body = text;
  let bodyLine = 1;
  const split = splitFrontMatter(text);
  if (split.error) {
    diagnostics.push({ file, line: 1, column: 1, severity: 'error', message: split.error });
    return { fields: {}, body: text, bodyLine: 1, diagnostics };
  }
  if (split.frontMatter !== undefined) {
    yaml = split.frontMatter;
    body = split.body;
    bodyLine = split.bodyLine;
  } else if (legacyPreamble) {
    const lines = text.split('\n');
    const end = lines.findIndex((l) => l.replace(/\r$/, '') === '---');
    if (end > 0) {
      yaml = lines.slice(0, end).join('\n');
      shift = 0;
      body = lines.slice(end + 1).join('\n');
      bodyLine = end + 2;
    }
  }
  if (yaml === undefined || yaml.trim() === '') return { fields: {}, body, bodyLine, diagnostics };
  if (rawKeys.length > 0) yaml = quoteRawValues(yaml, rawKeys);
  const source = new YamlSource(yaml, file, shift);
  diagnostics.push(...source.errors);
  if (source.errors.length > 0) return { fields: {}, body, bodyLine, diagnostics, source };
  if (source.topLevel() !== 'map') {
    const pos = source.positionOf([]);
    diagnostics.push({ file, ...pos, severity: 'error', message: 'the front matter must be a mapping of `key: value` lines' });
    return { fields: {}, body, bodyLine, diagnostics, source };
  }
  return { fields: source.data as Record<string, unknown>, body, bodyLine, diagnostics, source };
}

/** Quotes the one-line values of `keys` that are not already quoted, keeping every line where it was. */
function quoteRawValues(yaml: string, keys: readonly string[]): string {
  return yaml
    .split('\n')
    .map((line) => {
      const m = /^([\w-]+):[ \t]+(\S.*?)\s*$/.exec(line);
      if (!m || !keys.includes(m[1]) || /^["']/.test(m[2])) return line;
      return `${m[1]}: ${JSON.stringify(m[2])}`;
    })
    .join('\n');
}

/** Reads typed fields of a front matter, reporting each wrong one at its position. */
export class FieldReader {
  constructor(
    private readonly file: string,
    private readonly fm: FrontMatter,
  ) {}

  /** Reports a problem at a field (or at the front matter's start). */
  problem(key: string | undefined, message: string, severity: 'error' | 'warning' = 'error'): void {
    const pos = this.fm.source?.positionOf(key === undefined ? [] : [key]) ?? { line: 1, column: 1 };
    this.fm.diagnostics.push({ file: this.file, line: pos.line, column: pos.column, severity, message });
  }

  /** A string field; anything else present is reported. */
  string(key: string): string | undefined {
    const v = this.fm.fields[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    this.problem(key, `\`${key}\` must be text, not ${describe(v)}`);
    return undefined;
  }

  /** A number field. */
  number(key: string): number | undefined {
    const v = this.fm.fields[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    this.problem(key, `\`${key}\` must be a number, not ${describe(v)}`);
    return undefined;
  }

  /** A true/false field. */
  boolean(key: string): boolean | undefined {
    const v = this.fm.fields[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    this.problem(key, `\`${key}\` must be true or false, not ${describe(v)}`);
    return undefined;
  }

  /**
   * A list of names: a YAML list of strings, or (with `commaText`) one string of comma-separated names
   * (Claude's `allowed-tools: Read, Grep`). Parentheses keep their commas (`Bash(git add:*, git status:*)`).
   */
  names(key: string, commaText: boolean): string[] | undefined {
    const v = this.fm.fields[key];
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v)) {
      const bad = v.find((x) => typeof x !== 'string');
      if (bad !== undefined) {
        this.problem(key, `\`${key}\` must list names as text; ${describe(bad)} is not`);
        return v.filter((x): x is string => typeof x === 'string').map((s) => s.trim()).filter(Boolean);
      }
      return (v as string[]).map((s) => s.trim()).filter(Boolean);
    }
    if (typeof v === 'string' && commaText) return splitOutsideParens(v);
    this.problem(key, `\`${key}\` must be a list of names${commaText ? ' (or one line of names separated by commas)' : ''}, not ${describe(v)}`);
    return undefined;
  }

  /** Fields present that the format does not know, as warnings (a typo would otherwise be silently dropped). */
  unknownKeys(known: readonly string[], format: string): void {
    for (const key of Object.keys(this.fm.fields)) {
      if (!known.includes(key)) this.problem(key, `\`${key}\` is not a ${format} front matter field (known: ${known.join(', ')}); Arbor ignores it`, 'warning');
    }
  }
}

/** Splits `a, b(c, d), e` at the commas outside parentheses. */
function splitOutsideParens(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current);
  return out.map((s) => s.trim()).filter(Boolean);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

/** The file position (1-based) of `offset` in a body that starts on file line `bodyLine`. */
export function positionIn(body: string, offset: number, bodyLine: number): { line: number; column: number } {
  const before = body.slice(0, offset);
  const nl = before.lastIndexOf('\n');
  return { line: bodyLine + (before.split('\n').length - 1), column: offset - nl };
}

/**
 * A reference to a workspace file as a normalised workspace-relative path, or `undefined` when it leaves
 * the workspace. `fromDir` is the workspace-relative folder relative paths start from ('' for the root);
 * a path starting with `/` starts at the workspace root.
 */
export function workspacePath(written: string, fromDir: string): string | undefined {
  let p = written.trim();
  try {
    p = decodeURIComponent(p);
  } catch {
    // A stray `%` is part of the name.
  }
  const joined = p.startsWith('/') ? posixPath.normalize(p.slice(1)) : posixPath.normalize(posixPath.join(fromDir, p));
  if (joined === '..' || joined.startsWith('../') || posixPath.isAbsolute(joined)) return undefined;
  return joined.replace(/^\.\//, '').replace(/\/$/, '');
}

/** Whether `href` of a Markdown link names a file (not a web address, mail link or anchor in the page). */
export function isFileLink(href: string): boolean {
  return href !== '' && !href.startsWith('#') && !/^[a-z][a-z0-9+.-]*:/i.test(href);
}

/** Builds a body's segments, joining neighbouring text. */
export class SegmentBuilder {
  private readonly out: ForeignSegment[] = [];

  text(text: string): void {
    if (!text) return;
    const last = this.out.at(-1);
    if (last?.kind === 'text') last.text += text;
    else this.out.push({ kind: 'text', text });
  }

  add(segment: Exclude<ForeignSegment, { kind: 'text' }>): void {
    this.out.push(segment);
  }

  build(): ForeignSegment[] {
    return this.out;
  }
}

/** Adds a param once, keeping the first description given. */
export function addParam(params: ForeignParam[], param: ForeignParam): void {
  const known = params.find((p) => p.name === param.name);
  if (!known) params.push(param);
  else if (!known.description && param.description) known.description = param.description;
}
