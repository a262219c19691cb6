/**
 * A prompts folder as a whole: the prompt library (prompts/) with the flows of its `flows/` folder (flows/)
 * loaded as a part of it, so flow problems show in `diagnostics()` with the prompts' and a changed flow file
 * fires `onDidChange`. Here, above both, because the prompt library and the flows do not import each other;
 * the host, `arbor-prompts check` and tests open this one.
 */
import { FlowLibrary } from '../flows/flowLibrary';
import type { FlowDefinition } from '../flows/flowTypes';
import type { WorkspaceFiles } from '../files';
import type { PromptLimits } from '../limits';
import { FileSystemPromptLibrary, type PromptLibraryOptions } from '../prompts/fileSystemPromptLibrary';

/** See the file's header. */
export class PromptFolderLibrary extends FileSystemPromptLibrary {
  private constructor(promptDir: string, files: WorkspaceFiles, debounceMs: number, limits: PromptLimits, private readonly flows: FlowLibrary) {
    super(promptDir, files, debounceMs, limits, [flows]);
  }

  /** Loads every prompt and flow below `promptDir`; a missing folder gives an empty library. */
  static override async open(promptDir: string, options: PromptLibraryOptions = {}): Promise<PromptFolderLibrary> {
    return FileSystemPromptLibrary.openWith((files, debounceMs, limits) => new PromptFolderLibrary(promptDir, files, debounceMs, limits, new FlowLibrary()), promptDir, options);
  }

  /** The flow of `prompts/flows/` with that name (its `name:` field, else its file name). */
  getFlow(name: string): FlowDefinition | undefined {
    return this.flows.getFlow(name);
  }

  /** Every flow that loaded without errors, sorted by name. */
  listFlows(): FlowDefinition[] {
    return this.flows.listFlows();
  }
}
