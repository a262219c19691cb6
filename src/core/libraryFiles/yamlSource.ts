/** YAML (and JSON) of prompt and flow files, parsed with every value's position kept for diagnostics. */
import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { PromptDiagnostic, SourceOffset } from './fileTypes';

/**
 * Most times the values of a file's anchors may be used through aliases, counting what nested aliases
 * bring with them (the `yaml` library's own measure). A real file uses a handful; a "billion laughs" file
 * needs thousands to grow, and is refused with a diagnostic on that file.
 */
export const MAX_YAML_ALIAS_COUNT = 100;

/**
 * A parsed YAML (or JSON) text that still knows where each value sits, so problems found while reading
 * a prompt file point at the file's own line and column. `lineShift` is added to every line (front matter
 * starts on the file's second line).
 */
export class YamlSource {
  readonly data: unknown;
  readonly errors: PromptDiagnostic[];
  private readonly doc: Document;
  private readonly lines: LineCounter;

  constructor(
    readonly text: string,
    readonly file: string,
    private readonly lineShift = 0,
  ) {
    this.lines = new LineCounter();
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: true, uniqueKeys: true });
    // An unknown tag (`!!js/function`, `!foo`) would silently become a plain string: prompt files hold plain YAML.
    const unknownTags = this.doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED');
    this.errors = [...this.doc.errors, ...unknownTags].map((e) => {
      const pos = e.linePos?.[0] ?? { line: 1, col: 1 };
      return {
        file,
        line: pos.line + lineShift,
        column: pos.col,
        severity: 'error' as const,
        message: `YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}${e.code === 'TAG_RESOLVE_FAILED' ? ': remove the tag (only plain YAML values are read)' : ''}`,
      };
    });
    this.data = this.errors.length ? undefined : this.toData();
  }

  /** The document's value; an alias bomb (or any other failure to build it) becomes an error of this file. */
  private toData(): unknown {
    try {
      return this.doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
    } catch (err) {
      const excessive = err instanceof Error && /alias count/i.test(err.message);
      let at: number | undefined;
      visit(this.doc, {
        Alias: (_key, node) => {
          at = node.range?.[0];
          return visit.BREAK;
        },
      });
      const pos = at === undefined ? { line: 1, col: 1 } : this.lines.linePos(at);
      const message = excessive
        ? `YAML: the aliases of this file expand too much (more than ${MAX_YAML_ALIAS_COUNT} uses of anchored values, as in a "billion laughs" file); write the values out, or use fewer aliases`
        : `YAML: the file could not be read (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
      this.errors.push({ file: this.file, line: pos.line + this.lineShift, column: pos.col, severity: 'error', message });
      return undefined;
    }
  }

  /** File position (1-based) of the value at `path`, or of the document start when there is none. */
  positionOf(path: Array<string | number>): { line: number; column: number } {
    const node = path.length ? this.doc.getIn(path, true) : this.doc.contents;
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (!range) return { line: 1 + this.lineShift, column: 1 };
    const pos = this.lines.linePos(range[0]);
    return { line: pos.line + this.lineShift, column: pos.col };
  }

  /**
   * Where the text of the string at `path` starts: for a block scalar (`|`, `>`), the line after the
   * indicator with its indentation; for a quoted or plain scalar, the first character of the value.
   */
  textOffset(path: Array<string | number>): SourceOffset {
    const node = this.doc.getIn(path, true);
    if (!isScalar(node) || !node.range) return { line: 1 + this.lineShift, column: 0 };
    const start = this.lines.linePos(node.range[0]);
    if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
      const after = this.text.indexOf('\n', node.range[0]);
      const rest = after < 0 ? '' : this.text.slice(after + 1);
      const firstContent = rest.split('\n').find((l) => l.trim() !== '') ?? '';
      const indent = firstContent.length - firstContent.trimStart().length;
      return { line: start.line + 1 + this.lineShift, column: indent };
    }
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
    return { line: start.line + this.lineShift, column: start.col - 1 + (quoted ? 1 : 0) };
  }

  /** Whether the document's top level is a mapping, a list, or something else. */
  topLevel(): 'map' | 'seq' | 'other' {
    const c = this.doc.contents;
    return isMap(c) ? 'map' : isSeq(c) ? 'seq' : 'other';
  }
}
