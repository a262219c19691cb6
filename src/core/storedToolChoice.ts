/**
 * Which tools a chat offers, as the user chose them in the tools picker and as it is stored: in a
 * conversation's metadata (`toolChoice`) and, as the default for new chats, in VS Code's global state.
 * Both places can hold anything (a shared store, a hand-edited file), so every read goes through
 * `parseToolChoice`, which keeps only well-formed keys and caps how many it keeps. Pure.
 */

/**
 * The user's explicit choices, by tool key (see the host's `toolChoiceKey`): the tools ticked (`on`),
 * the tools unticked (`off`), and the tools pinned (`pinned`: always offered, even when the tools are
 * trimmed to fit a window). A tool in neither `on` nor `off` follows the default. `pinned` absent: the
 * default's pins apply.
 */
export interface ToolChoice {
  on: string[];
  off: string[];
  pinned?: string[];
}

/** Most keys kept in one list of a stored choice; a longer list is cut there (no real window has this many tools). */
export const MAX_TOOL_CHOICE_KEYS = 2_000;
/** Longest key kept (a source, a server name and a tool name); longer ones are dropped. */
export const MAX_TOOL_CHOICE_KEY_LENGTH = 512;

function keys(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = new Set<string>();
  for (const item of value.slice(0, MAX_TOOL_CHOICE_KEYS)) {
    if (typeof item === 'string' && item.length > 0 && item.length <= MAX_TOOL_CHOICE_KEY_LENGTH) out.add(item);
  }
  return [...out];
}

/**
 * Reads a stored choice: `undefined` unless it is an object; lists that are missing or not arrays read
 * as empty (`pinned` as absent), entries that are not short non-empty strings are dropped, duplicates
 * kept once. A key in both `on` and `off` counts as off: a malformed choice never offers more.
 */
export function parseToolChoice(value: unknown): ToolChoice | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const off = keys(v.off) ?? [];
  const offSet = new Set(off);
  const on = (keys(v.on) ?? []).filter((k) => !offSet.has(k));
  const pinned = keys(v.pinned);
  return pinned ? { on, off, pinned } : { on, off };
}
