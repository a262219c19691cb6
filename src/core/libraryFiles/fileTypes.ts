/**
 * Shapes shared by everything read from a prompts folder (prompt files, flow files): a declared parameter,
 * a positioned problem, and where a template's text sits in its file.
 */

/** One declared parameter of a prompt (front matter `params`, or dataknobs `defaults`/`required_params`). */
export interface PromptParam {
  name: string;
  default?: unknown;
  required?: boolean;
  description?: string;
}

/** A problem found while loading or rendering prompt files. Lines and columns are 1-based. */
export interface PromptDiagnostic {
  /** Path relative to the prompts folder, with `/` separators. */
  file: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
}

/** Where a template's text sits in its file, so template errors point at the file's own lines. */
export interface SourceOffset {
  /** File line of the template's first line, 1-based. */
  line: number;
  /** Columns to add on every template line (indentation of a YAML block scalar). */
  column: number;
}
