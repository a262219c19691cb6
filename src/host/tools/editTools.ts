/**
 * The built-in tools that change the workspace, wired to VS Code: `edit_file` and `create_file` write
 * through a `WorkspaceEdit` (`vscodeFileWriter`), and `run_command` runs in a terminal with shell
 * integration, else as a child process (`TerminalCommandRunner`). All of them ask before each call
 * by default (see `OfferedTool.checkCall`).
 */
import type { ToolHostServices } from './toolHostServices';
import { createFileTool } from './createFileTool';
import { editFileTool } from './editFileTool';
import type { OfferedTool } from './offeredTool';
import { runCommandTool } from './runCommandTool';
import { TerminalCommandRunner } from './terminalRunner';
import { vscodeFileWriter } from './vscodeFileWriter';
import type { WorkspaceToolEnv } from './workspaceAccess';

/** `edit_file`, `create_file` and `run_command` over the workspace tools' `env`, in the order they are offered. */
export function createEditTools(services: ToolHostServices, env: WorkspaceToolEnv): OfferedTool[] {
  const runner = new TerminalCommandRunner({ log: (message) => services.logger.info(message) });
  const edit = { ...env, writer: vscodeFileWriter };
  return [
    editFileTool(edit),
    createFileTool(edit),
    runCommandTool({
      folders: env.folders,
      files: env.files,
      commandLists: () => ({ allow: services.settings.commandAllowList, deny: services.settings.commandDenyList }),
      runner: runner.run,
    }),
  ];
}
