/**
 * Which chat tabs have no panel behind them yet. After a window reload VS Code shows every chat tab
 * again but creates a tab's webview (and asks the panel serializer for it) only when the tab is first
 * shown, so a tab in the background has no `WebviewPanel` until it is clicked. The tab API tells
 * neither the panel nor the conversation of a tab, only its group, position and label; this matches
 * the panels the extension holds to the tabs by group and label, and what is left over is restored
 * tabs waiting for their panel. Pure, so it is unit tested without VS Code.
 */

import { firstLine } from '../base/labels';

/** A chat tab as `vscode.window.tabGroups` shows it. */
export interface ChatTab {
  /** The view column of its group (1 for the first group). */
  column: number;
  /** Its position in the group. */
  index: number;
  label: string;
  /** It is the group's active tab (shown, so its panel exists). */
  active: boolean;
}

/** A chat panel the extension holds. */
export interface HeldPanel {
  column: number | undefined;
  title: string;
  /** Shown in its group. */
  visible: boolean;
}

/**
 * The tabs no held panel accounts for: each panel claims one tab of its group with its title (the
 * group's active tab first when the panel is visible). Tabs with the same label in a group are
 * interchangeable here, so which of them is left over does not matter to the caller, which shows
 * each candidate until it finds the conversation it wants.
 */
export function unclaimedTabs(tabs: readonly ChatTab[], panels: readonly HeldPanel[]): ChatTab[] {
  const left = [...tabs];
  // Visible panels first: each owns the active tab of its group, which a hidden panel of the same title must not take.
  const ordered = [...panels].sort((a, b) => Number(b.visible) - Number(a.visible));
  for (const panel of ordered) {
    const same = (t: ChatTab) => t.column === panel.column && t.label === panel.title;
    let at = panel.visible ? left.findIndex((t) => same(t) && t.active) : -1;
    if (at < 0) at = left.findIndex((t) => same(t) && !(t.active && !panel.visible));
    if (at < 0) at = left.findIndex(same);
    if (at >= 0) left.splice(at, 1);
  }
  return left;
}

/** The unclaimed tabs to show while looking for a conversation whose tab reads `label`: those with that label first. */
export function candidateTabs(unclaimed: readonly ChatTab[], label: string, onlyMatching: boolean): ChatTab[] {
  const matching = unclaimed.filter((t) => t.label === label);
  return onlyMatching ? matching : [...matching, ...unclaimed.filter((t) => t.label !== label)];
}

/** How long a chat tab's title may be; the conversation's title is cut to its first line and this length. */
const TAB_TITLE_MAX = 40;

/** The label of a conversation's chat tab. */
export function tabLabel(title: string): string {
  return firstLine(title, TAB_TITLE_MAX);
}
