/** The shapes of the prompt library: templates as loaded, their kinds, outputs and summaries. */
import type { PromptParam, SourceOffset } from '../libraryFiles/fileTypes';
import type { PromptModelSettings, PromptOutput, RagConfig } from '../promptContracts';


/** Which folder of `prompts/` a file lives in; `partial` files only serve `{{> name}}` includes. */
export type PromptKind = 'system' | 'user' | 'messages' | 'rag' | 'partial';

/** What happens when a required parameter is missing: throw, render with a warning, or render silently. */
export type ValidationLevel = 'error' | 'warn' | 'ignore';

/** One message of a `prompts/messages/` prompt; `content` is a template. */
export interface MessageTemplate {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** Where the content sits in the file, for error positions. */
  offset: SourceOffset;
}

/** A rag config as written in a prompt: inline, or the name of a `prompts/rag/` config. */
export type RagConfigEntry = RagConfig | { ref: string };

/** A loaded prompt file, normalised from either format. */
export interface PromptTemplate {
  name: string;
  kind: PromptKind;
  /** Relative to the prompts folder, `/` separators. */
  path: string;
  absolutePath: string;
  sha256: string;
  gitBlobId: string;
  description?: string;
  /** The template text (body of a Markdown file, `template` of a dataknobs file). */
  template: string;
  templateOffset: SourceOffset;
  /** Whether dataknobs `((...))` conditional sections apply (dataknobs files, or front matter `conditionalSections: true`). */
  conditionalSections: boolean;
  params: PromptParam[];
  /** Own validation level; the builder's default applies when absent. */
  validation?: ValidationLevel;
  rag: RagConfigEntry[];
  settings: PromptModelSettings;
  /** Only for `messages` prompts. */
  messages?: MessageTemplate[];
  /** Only for `rag` files: the configs the file defines. */
  ragConfigs?: RagConfig[];
  metadata?: Record<string, unknown>;
  /** The front matter's `output:` (and `retries:`) as written; the library resolves it into `output`. */
  outputSpec?: PromptOutputSpec;
  /** The structured answer this prompt asks for, its schema read and checked (absent when it has none or it is broken). */
  output?: PromptOutput;
}

/** A prompt's `output:` as its file writes it: an inline JSON Schema, or the path of a `.schema.json` file. */
export interface PromptOutputSpec {
  /** The inline schema (a YAML mapping). */
  schema?: Record<string, unknown>;
  /** The schema file, relative to the prompts folder with `/` separators (resolved from the prompt's own folder). */
  file?: string;
  /** `retries:` (0 to 10); absent: the manager's default. */
  retries?: number;
  /** Where `output:` is written, for problems about the schema. */
  line: number;
  column: number;
}

/** What `listPrompts()` shows for each prompt. */
export interface PromptInfo {
  name: string;
  kind: PromptKind;
  path: string;
  description?: string;
  params: PromptParam[];
}
