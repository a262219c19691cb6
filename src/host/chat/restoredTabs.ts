import * as vscode from 'vscode';
import { Views } from '../base/constants';
import type { ChatTab } from './tabClaims';

/** The commands that focus editor group 1 to 8 (VS Code numbers its groups as view columns do). */
const FOCUS_GROUP = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth'].map((n) => `workbench.action.focus${n}EditorGroup`);

/** Whether a tab holds an Arbor chat (VS Code prefixes an extension's view type, so the end is compared). */
function isChatTab(tab: vscode.Tab): boolean {
  const input = tab.input;
  return input instanceof vscode.TabInputWebview && (input.viewType === Views.chatPanel || input.viewType.endsWith(`-${Views.chatPanel}`));
}

/** Every Arbor chat tab of the window, with its group's view column and its position there. */
export function chatTabs(): ChatTab[] {
  const tabs: ChatTab[] = [];
  for (const group of vscode.window.tabGroups.all) {
    group.tabs.forEach((tab, index) => {
      if (isChatTab(tab)) tabs.push({ column: group.viewColumn, index, label: tab.label, active: tab.isActive });
    });
  }
  return tabs;
}

/** The position of the active tab of the group at `column`, if the group exists. */
export function activeIndexIn(column: number): number | undefined {
  const group = vscode.window.tabGroups.all.find((g) => g.viewColumn === column);
  const active = group?.activeTab;
  return group && active ? group.tabs.indexOf(active) : undefined;
}

/** Makes the group at `column` the active one; false when it cannot be reached that way. */
export async function focusGroup(column: number): Promise<boolean> {
  const focus = FOCUS_GROUP[column - 1];
  if (!focus) return false;
  await vscode.commands.executeCommand(focus);
  return true;
}

/**
 * Shows the tab at `index` of the active group, which makes VS Code create a restored tab's webview
 * (the extension API can reveal only panels it holds, so this goes through the workbench's own command).
 */
export async function openTabAt(index: number): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openEditorAtIndex', index);
}

/** Shows the tab at `index` of the group at `column`. */
export async function showTab(column: number, index: number): Promise<boolean> {
  if (!(await focusGroup(column))) return false;
  await openTabAt(index);
  return true;
}
