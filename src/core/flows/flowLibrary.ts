/**
 * The flows of a prompts folder as a part of its prompt library (`PromptFolderPart`): the library loads them
 * after its prompts on every reload (`loadFlows`), so their problems show with the prompts' and a changed
 * flow file fires the library's change event; `getFlow` and `listFlows` read what the last load found.
 */
import type { WorkspaceFiles } from '../files';
import type { PartPromptLookup, PromptFolderPart, PromptFolderPartLoad } from '../libraryFiles/folderPart';
import type { FlowDefinition } from './flowTypes';
import { loadFlows } from './loadFlows';

/** See the file's header. */
export class FlowLibrary implements PromptFolderPart {
  private flows = new Map<string, FlowDefinition>();

  async load(promptDir: string, files: WorkspaceFiles, prompts: PartPromptLookup): Promise<PromptFolderPartLoad> {
    const loaded = await loadFlows(promptDir, { files, prompts });
    this.flows = new Map(loaded.flows.map((f) => [f.name, f]));
    return { problems: loaded.problems, read: loaded.read };
  }

  /** The flow of `prompts/flows/` with that name (its `name:` field, else its file name). */
  getFlow(name: string): FlowDefinition | undefined {
    return this.flows.get(name);
  }

  /** Every flow that loaded without errors, sorted by name. */
  listFlows(): FlowDefinition[] {
    return [...this.flows.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
