import type * as vscode from 'vscode';
import { registerBookmarkCommands } from './bookmarkCommands';
import type { CommandDeps } from './commandDeps';
import { registerConversationCommands } from './conversationCommands';
import { registerGeneralCommands } from './generalCommands';
import { registerImportCommands } from './importCommands';
import { registerNodeCommands } from './nodeCommands';
import { registerOtherStoreCommands } from './otherStoreCommands';
import { registerTeamStoreCommands } from './teamStoreCommands';

/** Registers every Arbor command (ids in `constants.ts`, titles in `package.json`). */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  registerConversationCommands(context, deps);
  registerImportCommands(context, deps);
  registerNodeCommands(context, deps);
  registerBookmarkCommands(context, deps);
  registerGeneralCommands(context, deps);
  registerTeamStoreCommands(context, deps);
  registerOtherStoreCommands(context, deps);
}
