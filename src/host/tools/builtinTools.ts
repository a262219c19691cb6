/**
 * Every built-in tool of the extension, over the host's shared services: the workspace tools
 * (`read_file`, `list_files`, `search_workspace`, `grep`) on the same files, settings and index that
 * attachments and retrieval use, the editor and git tools that read VS Code itself, and the tools that
 * change the workspace (`edit_file`, `create_file`, `run_command`).
 */
import * as vscode from 'vscode';
import type { ToolHostServices } from './toolHostServices';
import { diagnosticsTool, selectionTool } from './editorTools';
import { createEditTools } from './editTools';
import { gitDiffTool, gitLogTool } from './gitTools';
import type { OfferedTool } from './offeredTool';
import { findRipgrep } from './ripgrep';
import type { WorkspaceToolEnv } from './workspaceAccess';
import { createWorkspaceTools } from './workspaceTools';

/** The workspace tools' view of the host: its folders, files, retrieval excludes, protected files and index, and VS Code's ripgrep. */
export function vscodeToolEnv(services: ToolHostServices): WorkspaceToolEnv {
  let rg: string | undefined;
  return {
    folders: () => services.folderPaths(),
    files: services.files,
    exclude: () => services.settings.ragExclude,
    protectedFiles: () => ({ globs: services.settings.protectedFiles, promptsFolder: services.settings.promptsFolder }),
    searchIndex: async (query, k) => {
      const index = await services.workspaceIndex();
      return index ? index.search(query, k) : undefined;
    },
    ripgrepPath: () => (rg ??= findRipgrep(vscode.env.appRoot)),
  };
}

/** The built-in tools, in the order they are offered: the read-only ones, then those that change the workspace. */
export function createBuiltinTools(services: ToolHostServices): OfferedTool[] {
  const env = vscodeToolEnv(services);
  return [
    ...createWorkspaceTools(env),
    diagnosticsTool(env),
    selectionTool(env, () => services.lastTextEditor),
    gitDiffTool(env),
    gitLogTool(env),
    ...createEditTools(services, env),
  ];
}
