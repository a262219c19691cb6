/**
 * Another kind of file kept in a prompts folder beside the prompts (flows, `flows/flowLibrary.ts`), loaded by
 * the prompt library after its prompts on every reload, so its problems show with theirs and a change to its
 * files fires the library's change event. The library knows parts only through this interface.
 */
import type { WorkspaceFiles } from '../files';
import type { PromptDiagnostic } from './fileTypes';

/** The prompts a part may look up while loading (the prompt library has these); only whether one exists matters. */
export interface PartPromptLookup {
  getSystemPrompt(name: string): object | undefined;
  getUserPrompt(name: string): object | undefined;
}

/** What one load of a part found. */
export interface PromptFolderPartLoad {
  problems: PromptDiagnostic[];
  /** Every file read, broken ones too, with its sha256 (for change detection). */
  read: Array<{ path: string; sha256: string }>;
}

/** See the file's header. */
export interface PromptFolderPart {
  /** Loads the part's files below `promptDir` again, after the prompts (which `prompts` looks up). */
  load(promptDir: string, files: WorkspaceFiles, prompts: PartPromptLookup): Promise<PromptFolderPartLoad>;
}
