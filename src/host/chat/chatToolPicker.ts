/**
 * "Choose Tools for This Chat…": a quick pick of every offered tool, grouped, each with a checkbox and
 * its token cost, a pin button per tool, and a title-bar button that saves the ticks as the default for
 * new chats. Accept saves the chat's choice. What it lists, counts and saves comes through its deps, so
 * the caller decides where tools come from; `chatToolPickerDeps` wires it to a chat.
 */
import * as vscode from 'vscode';
import { isVscodeModelId, readConversationMetadata, tokenCounterFor, type ToolChoice } from '../../core/index';
import { conversationModel } from '../conversations/conversationModel';
import type { OfferedTool } from '../tools/offeredTool';
import { offeredTools } from '../tools/toolApprovals';
import { choiceFromPick, pinnedKeys } from '../tools/toolChoice';
import type { ChatServices } from './chatServices';
import { toolPickItems, toolTokens, type ToolPickRow } from './toolPickItems';

/** What the picker reads and saves. */
export interface ToolPickerDeps {
  /** The tools the chat could offer (policy `off` already left out). */
  tools(): Promise<readonly OfferedTool[]>;
  /** The tokens each tool's definition takes in a request to the chat's model, in order. */
  count(tools: readonly OfferedTool[]): Promise<number[]>;
  chatChoice(): Promise<ToolChoice | undefined>;
  setChatChoice(choice: ToolChoice): Promise<void>;
  defaultChoice(): ToolChoice | undefined;
  setDefaultChoice(choice: ToolChoice): Promise<void>;
}

interface RowItem extends vscode.QuickPickItem {
  readonly row: ToolPickRow;
}

const SAVE_DEFAULT: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('save-all'), tooltip: 'Save as Default for New Chats' };
const pinButton = (pinned: boolean): vscode.QuickInputButton => ({
  iconPath: new vscode.ThemeIcon(pinned ? 'pinned' : 'pin'),
  tooltip: pinned ? 'Unpin (it may be left out to fit a small window)' : 'Pin: always offer it, even when tools are trimmed to fit the window',
});
const TITLE = 'Choose Tools for This Chat';

/**
 * Shows the picker; resolves `true` when the user accepted (the chat's choice is saved) and `false`
 * when they closed it. Listing the tools may start MCP servers, so the picker shows busy until they answer.
 */
export async function chooseTools(deps: ToolPickerDeps): Promise<boolean> {
  const pick = vscode.window.createQuickPick<RowItem | vscode.QuickPickItem>();
  pick.title = TITLE;
  pick.canSelectMany = true;
  pick.matchOnDetail = true;
  pick.placeholder = 'Listing the tools…';
  pick.busy = true;
  pick.buttons = [SAVE_DEFAULT];
  pick.show();
  try {
    const tools = await deps.tools();
    const [tokens, chatChoice] = await Promise.all([deps.count(tools), deps.chatChoice()]);
    const defaultChoice = deps.defaultChoice();
    const pinned = new Set(pinnedKeys(chatChoice, defaultChoice));
    const entries = toolPickItems(tools, tokens, chatChoice, defaultChoice);
    const rows = entries.filter((e): e is ToolPickRow => e.kind === 'tool');
    const ticked = (): Set<string> => new Set(pick.selectedItems.flatMap((i) => ('row' in i ? [i.row.key] : [])));
    // Items are replaced to redraw a pin (its button, and "pinned" beside the cost); the ticks and the row the user is on carry over.
    const render = (checked: ReadonlySet<string>, activeKey?: string) => {
      const items: Array<RowItem | vscode.QuickPickItem> = entries.map((e) =>
        e.kind === 'separator'
          ? { label: e.label, kind: vscode.QuickPickItemKind.Separator }
          : { row: e, label: e.label, description: pinned.has(e.key) ? `${e.description} · pinned` : e.description, detail: e.detail, picked: checked.has(e.key), buttons: [pinButton(pinned.has(e.key))] },
      );
      pick.items = items;
      pick.selectedItems = items.filter((i) => 'row' in i && checked.has(i.row.key));
      const active = items.find((i) => 'row' in i && i.row.key === activeKey);
      if (active) pick.activeItems = [active];
    };
    const describe = () => {
      const checked = ticked();
      const total = rows.reduce((n, r) => n + (checked.has(r.key) ? r.tokens : 0), 0);
      pick.placeholder =
        rows.length === 0
          ? 'No tools are offered: add an MCP server, or change the tools policy (arbor.tools.approval).'
          : `${checked.size} of ${rows.length} tools ticked: ~${total.toLocaleString('en-US')} tokens of definitions in each request`;
    };
    render(new Set(rows.filter((r) => r.picked).map((r) => r.key)));
    describe();
    pick.busy = false;
    // The pins a chat that never chose its own follows are the default's: saved with the chat's choice from now on.
    const previous: ToolChoice = { ...(chatChoice ?? { on: [], off: [] }), pinned: [...pinnedKeys(chatChoice, defaultChoice)] };
    return await new Promise<boolean>((resolve, reject) => {
      pick.onDidChangeSelection(describe);
      pick.onDidTriggerItemButton((event) => {
        if (!('row' in event.item)) return;
        const key = event.item.row.key;
        const checked = ticked();
        // Pinning ticks the tool too: a pinned tool is one the user wants offered.
        if (!pinned.delete(key)) {
          pinned.add(key);
          checked.add(key);
        }
        render(checked, key);
        describe();
      });
      pick.onDidTriggerButton((button) => {
        if (button !== SAVE_DEFAULT) return;
        deps.setDefaultChoice(choiceFromPick(tools, ticked(), pinned, deps.defaultChoice())).then(
          () => (pick.title = `${TITLE} (saved as the default for new chats)`),
          (err: unknown) => void vscode.window.showErrorMessage(`Could not save the default tools: ${err instanceof Error ? err.message : String(err)}`),
        );
      });
      pick.onDidAccept(() => {
        deps.setChatChoice(choiceFromPick(tools, ticked(), pinned, previous)).then(() => resolve(true), reject).finally(() => pick.hide());
      });
      pick.onDidHide(() => resolve(false));
    });
  } finally {
    pick.dispose();
  }
}

/**
 * The picker's deps for chat `conversationId`: the window's offered tools (with the `arbor.tools.approval`
 * policy `off` left out), counted with the chat model's counter, its choice in the conversation's
 * metadata and the default in the global state.
 */
export function chatToolPickerDeps(services: ChatServices, conversationId: string): ToolPickerDeps {
  const metadata = async () => (await services.manager(conversationId)).getMetadata() as Record<string, unknown>;
  return {
    tools: async () => offeredTools(await services.tools.offered(), services.settings.toolApproval),
    count: async (tools) => {
      const model = conversationModel(await metadata(), services.settings);
      const counter = isVscodeModelId(model) ? await services.vscodeLm.tokenCounter(model) : await tokenCounterFor(services.settings.provider, model);
      return tools.map((t) => toolTokens(counter, t));
    },
    chatChoice: async () => readConversationMetadata(await metadata(), 'toolChoice'),
    setChatChoice: (choice) => services.withManager(conversationId, (m) => m.setMetadata({ toolChoice: choice })),
    defaultChoice: () => services.tools.defaultChoice(),
    setDefaultChoice: (choice) => services.tools.setDefaultChoice(choice),
  };
}
