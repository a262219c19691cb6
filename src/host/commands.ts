import type * as vscode from 'vscode';
import { registerBookmarkCommands } from './commands/bookmarkCommands';
import type { CommandDeps } from './commands/commandDeps';
import { registerConversationCommands } from './commands/conversationCommands';
import { registerGeneralCommands } from './commands/generalCommands';
import { registerImportCommands } from './imports/importCommands';
import { registerNodeCommands } from './commands/nodeCommands';
import { registerOtherStoreCommands } from './commands/otherStoreCommands';
import { registerTeamStoreCommands } from './commands/teamStoreCommands';
import { registerWindowCommands } from './commands/windowCommands';
import type { Services } from './services';

/** Registers every Arbor command (ids in `constants.ts`, titles in `package.json`). */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps<Services>): void {
  registerConversationCommands(context, deps);
  registerImportCommands(context, deps);
  registerNodeCommands(context, deps);
  registerBookmarkCommands(context, deps);
  registerGeneralCommands(context, deps);
  registerWindowCommands(context, deps);
  registerTeamStoreCommands(context, deps);
  registerOtherStoreCommands(context, deps);
}
