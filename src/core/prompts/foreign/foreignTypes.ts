/**
 * Prompt files of other tools that Arbor offers in its `/` menu beside its own `prompts/`: GitHub
 * Copilot's `.github/prompts/*.prompt.md`, Continue's `.continue/prompts/*.prompt` and Claude Code's
 * `.claude/commands/*.md`. Each format is parsed into one `ForeignPrompt`, which the renderer fills.
 */
import type { PromptDiagnostic } from '../../libraryFiles/fileTypes';

/** Which tool's format a prompt file is in. */
export type ForeignSource = 'copilot' | 'continue' | 'claude';

/** Where each tool keeps its workspace prompt files, and how the `/` menu names the tool. */
export interface ForeignFolder {
  source: ForeignSource;
  /** Workspace-relative folder, `/` separators. */
  folder: string;
  /** The tool's name as the `/` menu shows it. */
  label: string;
  /** Whether a file name is a prompt file of this format. */
  matches(fileName: string): boolean;
  /** The command name a file gives when its front matter names none. */
  baseName(fileName: string): string;
}

/** The three folders, in the order their prompts are listed. */
export const FOREIGN_FOLDERS: readonly ForeignFolder[] = [
  { source: 'copilot', folder: '.github/prompts', label: 'Copilot', matches: (n) => n.endsWith('.prompt.md'), baseName: (n) => n.slice(0, -'.prompt.md'.length) },
  { source: 'continue', folder: '.continue/prompts', label: 'Continue', matches: (n) => n.endsWith('.prompt'), baseName: (n) => n.slice(0, -'.prompt'.length) },
  { source: 'claude', folder: '.claude/commands', label: 'Claude', matches: (n) => n.endsWith('.md'), baseName: (n) => n.slice(0, -'.md'.length) },
];

/** Whether a workspace-relative path is inside one of the foreign prompt folders. */
export function isForeignPromptPath(relPath: string): boolean {
  return FOREIGN_FOLDERS.some((f) => relPath.startsWith(`${f.folder}/`));
}

/** The editor's values a prompt may use (Copilot's `${selection}`, `${file}`…, Continue's `{{{ currentFile }}}`). */
export type EditorVariable =
  | 'selection'
  | 'selectedText'
  | 'file'
  | 'fileBasename'
  | 'fileBasenameNoExtension'
  | 'fileDirname'
  | 'workspaceFolder'
  | 'workspaceFolderBasename'
  | 'currentFileText';

/** One piece of a prompt's body: text as written, or a value filled at send time. */
export type ForeignSegment =
  | { kind: 'text'; text: string }
  /** A form field (`${input:name}`, `$ARGUMENTS`, `$1`, `{{{ input }}}`). */
  | { kind: 'param'; name: string }
  /** A value of the active editor or the workspace. */
  | { kind: 'editor'; variable: EditorVariable }
  /** Continue's `{{{ path/to/file }}}`: the workspace file's text in place. */
  | { kind: 'file'; path: string };

/** A form field of a foreign prompt. */
export interface ForeignParam {
  name: string;
  /** What the field asks for (a placeholder, an argument hint). */
  description?: string;
  required: boolean;
}

/** A workspace file a prompt refers to: it becomes an attachment of the message (or, for `file` segments, inline text). */
export interface ForeignFileRef {
  /** Workspace-relative, `/` separators, normalised. */
  path: string;
  /** As written in the file (`#file:src/a.ts`, `../src/a.ts`, `@docs/x.md`). */
  written: string;
  /** Position in the prompt file, 1-based. */
  line: number;
  column: number;
}

/** A prompt file of another tool, normalised. */
export interface ForeignPrompt {
  /** The `/` command name (unique among all prompts offered). */
  name: string;
  source: ForeignSource;
  /** The tool's name for the `/` menu ("Copilot"). */
  label: string;
  /** Workspace-relative path, `/` separators. */
  path: string;
  absolutePath: string;
  sha256: string;
  gitBlobId: string;
  description?: string;
  params: ForeignParam[];
  /**
   * The field the text typed beside the form fills when it is left empty (Claude's `arguments`,
   * Continue's `input`); without one, typed text follows the rendered prompt.
   */
  typedParam?: string;
  /** The model the front matter asks for, for that request only. */
  model?: string;
  /** The tools the front matter allows (Copilot `tools`, Claude `allowed-tools`); absent means no restriction. */
  tools?: string[];
  /** A system message for that request (Continue's `<system>` block). */
  system?: string;
  /** Attach the active editor's file (Continue's `@currentFile`). */
  attachActiveFile?: boolean;
  segments: ForeignSegment[];
  /** Files attached to the message (`#file:`, Markdown links, `@path`). */
  attachments: ForeignFileRef[];
  /** Files whose text goes in place (Continue's `{{{ path }}}`). */
  inlineFiles: ForeignFileRef[];
}

/** What a parser returns: the prompt (absent when the file cannot be used at all) and every problem found. */
export interface ForeignParseResult {
  prompt?: Omit<ForeignPrompt, 'name' | 'absolutePath' | 'sha256' | 'gitBlobId'> & { requestedName: string };
  diagnostics: PromptDiagnostic[];
}

/** What a parser is given: the file's text and where it is. */
export interface ForeignFileInput {
  /** Workspace-relative path, `/` separators. */
  path: string;
  text: string;
}
