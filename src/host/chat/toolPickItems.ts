/**
 * The rows of the tools picker, built without VS Code so they can be tested: the offered tools grouped
 * as built-in, each MCP server, and other extensions, each with its token cost, the first line of its
 * description, whether it is ticked and whether it is pinned. `chatToolPicker.ts` shows them.
 */
import type { TokenCounter, ToolChoice, ToolDefinition } from '../../core/index';
import type { OfferedTool } from '../tools/offeredTool';
import { isToolChosen, pinnedKeys, toolChoiceKey } from '../tools/toolChoice';

/** A group heading of the picker. */
export interface ToolPickSeparator {
  readonly kind: 'separator';
  readonly label: string;
}

/** One tool's row. */
export interface ToolPickRow {
  readonly kind: 'tool';
  /** `toolChoiceKey` of the tool. */
  readonly key: string;
  readonly tool: OfferedTool;
  /** The name the user reads. */
  readonly label: string;
  /** Tokens its definition takes in a request. */
  readonly tokens: number;
  /** Its cost as shown: `~N tokens`. */
  readonly description: string;
  /** The first line of the tool's description; absent when it has none. */
  readonly detail?: string;
  /** Ticked: offered in this chat. */
  readonly picked: boolean;
  readonly pinned: boolean;
}

/** A row of the picker, in order. */
export type ToolPickEntry = ToolPickSeparator | ToolPickRow;

/** Longest detail line shown; a longer first line is cut (a server's description can be anything). */
export const MAX_DETAIL_CHARS = 200;

/** The heading of the built-in tools. */
export const BUILTIN_GROUP = 'Built-in';
/** The heading of other extensions' tools. */
export const EXTENSION_GROUP = 'Other extensions';
/** The heading of one MCP server's tools. */
export const mcpGroup = (server: string): string => `MCP: ${server}`;

/**
 * Longest definition (JSON characters) counted with the tokenizer; a longer one (a server can send a
 * schema of megabytes) is estimated at 4 characters a token, so opening the picker never stalls the host.
 */
export const MAX_COUNTED_DEFINITION_CHARS = 100_000;

/** The tokens a tool's definition takes in a request: its JSON as sent, counted by `counter`. */
export function toolTokens(counter: TokenCounter, t: OfferedTool): number {
  const definition: ToolDefinition = { type: 'function', function: { name: t.tool.name, description: t.tool.description, parameters: t.tool.inputSchema } };
  const chars = JSON.stringify([definition]).length;
  return chars > MAX_COUNTED_DEFINITION_CHARS ? Math.ceil(chars / 4) : counter.countTools([definition]);
}

/**
 * The picker's rows: built-in tools, then each MCP server's in the order the servers first appear, then
 * other extensions' tools, each group under its heading and in the order given; `tokens[i]` is the cost
 * of `tools[i]`. Ticked and pinned as the chat's choice says, else the default's (see `isToolChosen`).
 */
export function toolPickItems(tools: readonly OfferedTool[], tokens: readonly number[], chatChoice: ToolChoice | undefined, defaultChoice: ToolChoice | undefined): ToolPickEntry[] {
  const groups = new Map<string, ToolPickRow[]>();
  const pins = pinnedKeys(chatChoice, defaultChoice);
  const add = (group: string, row: ToolPickRow) => {
    const rows = groups.get(group);
    if (rows) rows.push(row);
    else groups.set(group, [row]);
  };
  tools.forEach((t, i) => {
    const key = toolChoiceKey(t);
    const detail = firstLine(t.tool.description);
    const cost = Math.round(tokens[i] ?? 0);
    add(groupOf(t), {
      kind: 'tool',
      key,
      tool: t,
      label: plainText(t.displayName),
      tokens: cost,
      description: `~${cost.toLocaleString('en-US')} tokens`,
      ...(detail ? { detail } : {}),
      picked: isToolChosen(t, chatChoice, defaultChoice),
      pinned: pins.has(key),
    });
  });
  const order = [BUILTIN_GROUP, ...[...groups.keys()].filter((g) => g !== BUILTIN_GROUP && g !== EXTENSION_GROUP), EXTENSION_GROUP];
  return order.flatMap((label): ToolPickEntry[] => {
    const rows = groups.get(label);
    return rows ? [{ kind: 'separator', label }, ...rows] : [];
  });
}

function groupOf(t: OfferedTool): string {
  if (t.source === 'builtin') return BUILTIN_GROUP;
  if (t.source === 'extension') return EXTENSION_GROUP;
  return mcpGroup(plainText(t.server ?? ''));
}

/** The first non-empty line of a description, trimmed and cut to `MAX_DETAIL_CHARS`; `undefined` for none. */
export function firstLine(description: string): string | undefined {
  const line = description
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return undefined;
  const text = plainText(line);
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS - 1)}…` : text;
}

/** A server's text as a quick pick shows it literally: `$(name)` would otherwise render as an icon. */
function plainText(text: string): string {
  return text.replace(/\$\(/g, '$\u200b(');
}
