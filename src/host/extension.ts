import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { ActivationClock } from './base/activationTiming';
import { registerChatPanels } from './chat/chatPanel';
import { registerCommands } from './commands';
import { ContextKeys } from './base/constants';
import { Indexing } from './workspace/indexing';
import type { McpHost } from './mcp/mcpHost';
import { registerMcp } from './mcp/mcpView';
import { registerOtherStoresOffer } from './commands/otherStoresOffer';
import { registerPromptDiagnostics } from './prompts/promptDiagnostics';
import { registerPromptVersions } from './prompts/promptVersions';
import { runRetentionAtStart } from './stores/retention';
import { Services } from './services';
import { registerStatusBar } from './chat/statusBar';
import { registerTreeView } from './tree/treeView';
import { registerWorkspaceGrantNotice } from './settings/workspaceSettingsGuard';
import { createBuiltinTools } from './tools/builtinTools';
import { extensionTools } from './tools/lmTools';

/** The window's MCP servers, stopped (their processes ended) when the extension deactivates. */
let mcpHost: McpHost | undefined;

/**
 * The composition root: build the shared services once, then register each feature. Nothing heavy
 * happens here: the store, the prompt library and the index load on first use.
 */
export function activate(context: vscode.ExtensionContext): void {
  const clock = new ActivationClock(performance.now());
  const services = new Services(context);
  context.subscriptions.push(services);
  clock.whenRendered((t) => {
    services.logger.info(`Activation to first tree render: ${t.toFirstRenderMs?.toFixed(1)} ms (activate() took ${t.activateMs?.toFixed(1)} ms)`);
    // Also a file, so a benchmark driving VS Code from outside can read it without the palette.
    const dir = context.storageUri ?? context.globalStorageUri;
    void vscode.workspace.fs
      .createDirectory(dir)
      .then(() => vscode.workspace.fs.writeFile(vscode.Uri.joinPath(dir, 'activation-timing.json'), new TextEncoder().encode(JSON.stringify(t, null, 2))))
      .then(undefined, (err) => services.logger.debug('Could not write activation-timing.json', err));
  });

  const tree = registerTreeView(context, { services, clock });
  mcpHost = registerMcp(context, { services });
  const panels = registerChatPanels(context, { services });
  const indexing = new Indexing(services);
  context.subscriptions.push(indexing);
  registerCommands(context, { services, panels, tree, clock, indexing });
  registerStatusBar(context, { services, panels });
  registerPromptDiagnostics(context, { services });
  registerPromptVersions(context);
  services.codeApply.register(context);
  // The built-in tools read the workspace: in Restricted Mode, as retrieval, they are off.
  let builtin: ReturnType<typeof createBuiltinTools> | undefined;
  const removeBuiltin = services.tools.addProvider('built-in', () => (services.trusted ? (builtin ??= createBuiltinTools(services)) : []));
  context.subscriptions.push({ dispose: removeBuiltin });
  // MCP servers start the first time a chat asks for tools; other extensions' tools are listed then too.
  const host = mcpHost;
  context.subscriptions.push({
    dispose: services.tools.addProvider('MCP', () => host.tools(), { ready: () => host.readyTools(), warmUp: () => void host.warmUp(), onDidChange: host.onDidChangeTools }),
  });
  context.subscriptions.push({ dispose: services.tools.addProvider('extension', () => extensionTools()) });

  const setRestricted = () => void vscode.commands.executeCommand('setContext', ContextKeys.restricted, !services.trusted);
  setRestricted();
  context.subscriptions.push(services.onDidChangeTrust(setRestricted));
  if (!services.trusted) services.logger.info('Restricted Mode: chat works; workspace prompts and indexing are off until the workspace is trusted.');
  indexing.start();
  runRetentionAtStart({ services, panels });
  registerOtherStoresOffer(context, { services, tree });
  registerWorkspaceGrantNotice(context, services.logger);
  clock.activated();
}

/**
 * Everything is disposed through `context.subscriptions`. VS Code waits for the promise returned here,
 * so the MCP servers have stopped (stdio servers' processes ended) before the extension host exits.
 */
export function deactivate(): Promise<void> | undefined {
  return mcpHost?.shutdown();
}
