/**
 * Which of the offered tools a chat offers to its model: the chat's own choice from the tools picker,
 * else the default for new chats, else the rule that built-in and MCP tools are on and other
 * extensions' tools are off until ticked. Choices are kept by a key that survives a renumbered wire
 * name (`_2` after a clash) and a restart. Pure.
 */
import type { ToolChoice } from '../../core/index';
import type { OfferedTool } from './offeredTool';

/**
 * The key a choice keeps for a tool: its source, its MCP server and its own name (not the wire name,
 * which is made unique by numbering and may change when another tool comes or goes), each part
 * percent-encoded so no name can pass for another: `builtin/read_file`, `mcp/everything/get-sum`,
 * `extension/leaf_counter`.
 */
export function toolChoiceKey(t: OfferedTool): string {
  const own = encodeURIComponent(t.ownName ?? t.displayName);
  return t.source === 'mcp' ? `mcp/${encodeURIComponent(t.server ?? '')}/${own}` : `${t.source}/${own}`;
}

/** Whether a source's tools are offered when nobody chose: built-in and MCP tools are, other extensions' are not. */
export function onUnlessChosen(source: OfferedTool['source']): boolean {
  return source !== 'extension';
}

/** The explicit choices of one `ToolChoice` as sets, for lookups in a long list. */
interface ChoiceSets {
  on: ReadonlySet<string>;
  off: ReadonlySet<string>;
}

const sets = (choice: ToolChoice | undefined): ChoiceSets => ({ on: new Set(choice?.on ?? []), off: new Set(choice?.off ?? []) });

/** What one choice says about `key`: `undefined` when nothing (off wins a clash: a malformed choice never offers more). */
const verdict = (choice: ChoiceSets, key: string): boolean | undefined => (choice.off.has(key) ? false : choice.on.has(key) ? true : undefined);

/** A test of whether a tool is chosen, with both choices read once (see `isToolChosen`). */
function chooser(chatChoice: ToolChoice | undefined, defaultChoice: ToolChoice | undefined): (tool: OfferedTool) => boolean {
  const chat = sets(chatChoice);
  const fallback = sets(defaultChoice);
  return (tool) => {
    const key = toolChoiceKey(tool);
    return verdict(chat, key) ?? verdict(fallback, key) ?? onUnlessChosen(tool.source);
  };
}

/** Whether the chat offers `tool`: the chat's explicit choice, else the default's, else `onUnlessChosen`. */
export function isToolChosen(tool: OfferedTool, chatChoice: ToolChoice | undefined, defaultChoice: ToolChoice | undefined): boolean {
  return chooser(chatChoice, defaultChoice)(tool);
}

/** The tools the chat offers, in their order (see `isToolChosen`). */
export function chosenTools<T extends OfferedTool>(tools: readonly T[], chatChoice: ToolChoice | undefined, defaultChoice: ToolChoice | undefined): T[] {
  return tools.filter(chooser(chatChoice, defaultChoice));
}

/** The pins in force: the chat's, else the default's (a chat that never set pins follows the default). */
export function pinnedKeys(chatChoice: ToolChoice | undefined, defaultChoice: ToolChoice | undefined): ReadonlySet<string> {
  return new Set(chatChoice?.pinned ?? defaultChoice?.pinned ?? []);
}

/** Whether `tool` is pinned: it stays offered when the tools are trimmed to fit a window. */
export function isToolPinned(tool: OfferedTool, chatChoice: ToolChoice | undefined, defaultChoice: ToolChoice | undefined): boolean {
  return pinnedKeys(chatChoice, defaultChoice).has(toolChoiceKey(tool));
}

/**
 * The choice the picker saves: every tool it showed ticked or unticked as the user left it, the pins as
 * they are now, and what `previous` said about tools not shown this time (a server that is not running
 * keeps its tools' choices for when it is back).
 */
export function choiceFromPick(shown: readonly OfferedTool[], ticked: ReadonlySet<string>, pinned: ReadonlySet<string>, previous: ToolChoice | undefined): ToolChoice {
  const shownKeys = new Set(shown.map(toolChoiceKey));
  const kept = (list: readonly string[] | undefined) => (list ?? []).filter((k) => !shownKeys.has(k));
  const on = [...kept(previous?.on), ...[...shownKeys].filter((k) => ticked.has(k))];
  const off = [...kept(previous?.off), ...[...shownKeys].filter((k) => !ticked.has(k))];
  return { on, off, pinned: [...kept(previous?.pinned), ...[...shownKeys].filter((k) => pinned.has(k))] };
}
