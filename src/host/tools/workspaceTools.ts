/**
 * The built-in tools that need no `vscode`: `read_file`, `list_files`, `search_workspace` and `grep`,
 * all read-only and all bound by the workspace's rules (see `WorkspaceAccess`).
 */
import { grepTool } from './grepTool';
import { listFilesTool } from './listFilesTool';
import type { OfferedTool } from './offeredTool';
import { readFileTool } from './readFileTool';
import { searchWorkspaceTool } from './searchWorkspaceTool';
import type { WorkspaceToolEnv } from './workspaceAccess';

/** The workspace tools over `env`, in the order they are offered. */
export function createWorkspaceTools(env: WorkspaceToolEnv): OfferedTool[] {
  return [readFileTool(env), listFilesTool(env), searchWorkspaceTool(env), grepTool(env)];
}
