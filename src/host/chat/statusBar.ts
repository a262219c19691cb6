import * as vscode from 'vscode';
import { modelKey } from '../../core/index';
import type { ChatPanels } from './chatPanel';
import { Commands } from '../base/constants';
import { conversationModel } from '../conversations/conversationModel';
import { formatCost } from '../base/labels';
import type { ChatServices } from './chatServices';

/** A status bar item with the active chat's model (else the default) and the active conversation's cost; a click picks the model. */
export function registerStatusBar(context: vscode.ExtensionContext, deps: { services: ChatServices; panels: ChatPanels }): void {
  const { services, panels } = deps;
  const item = vscode.window.createStatusBarItem('arbor.model', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Arbor Model';
  item.command = Commands.selectModel;
  let generation = 0;
  const update = async () => {
    const mine = ++generation;
    const s = services.settings;
    let cost = '';
    let model = modelKey(s.model);
    const id = panels.activeConversationId;
    if (id) {
      try {
        const manager = await services.manager(id);
        cost = formatCost(manager.getTotalCost());
        model = conversationModel(manager.getMetadata() as Record<string, unknown>, s);
      } catch {
        cost = '';
      }
    }
    if (mine !== generation) return;
    item.text = `$(hubot) ${model}${cost ? ` · ${cost}` : ''}`;
    item.tooltip = `Arbor: ${s.provider} model ${model}${id ? ' in this chat' : ''}${cost ? `\nThis conversation has cost ${cost}` : ''}${services.trusted ? '' : '\nRestricted Mode: workspace prompts and indexing are off'}\nClick to choose another model`;
    item.show();
  };
  context.subscriptions.push(
    item,
    services.onDidChangeSettings(() => void update()),
    services.onDidChangeTrust(() => void update()),
    panels.onDidChangeActive(() => void update()),
    services.onDidChangeConversation((id) => {
      if (id === panels.activeConversationId) void update();
    }),
  );
  void update();
}
