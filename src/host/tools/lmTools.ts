/**
 * The tools other extensions registered with VS Code (`vscode.lm.tools`), offered to Arbor's chats as
 * tools of source `extension`. They are called through `vscode.lm.invokeTool` without a chat invocation
 * token (Arbor is no chat participant), so a tool that needs one fails with its own message, which the
 * model reads. Whether a tool only reads is unknown, so every call is treated as one that may change things.
 */
import * as vscode from 'vscode';
import type { ToolContext, ToolOutput } from '../../core/index';
import { EXTENSION_ID } from '../base/constants';
import { abortable, lmInputSchema, lmResultText, lmToolLeftOut, lmWireNames, type LmResultPart } from './lmToolParts';
import type { OfferedTool } from './offeredTool';

/** Options of `extensionTools`. */
export interface ExtensionToolsOptions {
  /** Wire names other providers' tools use: an extension tool of the same name is numbered (`_2`) instead. */
  reservedNames?: Iterable<string>;
}

/**
 * Every tool in `vscode.lm.tools` except Arbor's own and those `lmToolLeftOut` leaves out (VS Code's
 * `_internal` tools, tools without a usable input schema), as offered tools: the wire name is the tool's name
 * made valid for model APIs and unique, the name shown is the tool's own, `readOnly` is false. Cheap (no
 * tool runs): read it again for each request, since extensions come and go.
 */
export function extensionTools(options: ExtensionToolsOptions = {}): OfferedTool[] {
  const own = ownToolNames();
  const infos = vscode.lm.tools.filter((info) => !own.has(info.name) && lmToolLeftOut(info) === undefined);
  const wireNames = lmWireNames(
    infos.map((info) => info.name),
    options.reservedNames,
  );
  return infos.map((info, i) => ({
    tool: {
      name: wireNames[i],
      description: info.description || info.name,
      inputSchema: lmInputSchema(info.inputSchema),
      readOnly: false,
      run: (input: Record<string, unknown>, ctx: ToolContext) => invokeExtensionTool(info.name, input, ctx.signal),
    },
    source: 'extension',
    displayName: info.name,
  }));
}

/**
 * Calls tool `name` with `input`. Aborting `signal` cancels the call's token and rejects at once with the
 * signal's reason; a tool that fails rejects with an error that names it (the model reads the message).
 */
export async function invokeExtensionTool(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput> {
  signal.throwIfAborted();
  const cancellation = new vscode.CancellationTokenSource();
  const cancel = () => cancellation.cancel();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const result = await abortable(vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cancellation.token), signal);
    return { content: lmResultText(result.content.map(resultPart)), metadata: { extensionTool: name } };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new Error(`The tool "${name}" of another extension failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    signal.removeEventListener('abort', cancel);
    cancellation.dispose();
  }
}

/** The names of the tools Arbor itself contributes (`contributes.languageModelTools`), which it does not offer twice. */
function ownToolNames(): Set<string> {
  const contributed = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON?.contributes?.languageModelTools;
  return new Set(Array.isArray(contributed) ? contributed.map((tool: { name?: unknown }) => String(tool.name)) : []);
}

function resultPart(part: unknown): LmResultPart {
  if (part instanceof vscode.LanguageModelTextPart) return { kind: 'text', value: part.value };
  if (part instanceof vscode.LanguageModelPromptTsxPart) return { kind: 'promptTsx', value: part.value };
  // LanguageModelDataPart (VS Code 1.101 and later) is not in the 1.100 API Arbor builds against.
  if (typeof part === 'object' && part !== null && 'mimeType' in part && 'data' in part && part.data instanceof Uint8Array) {
    return { kind: 'data', mimeType: String(part.mimeType), bytes: part.data.byteLength };
  }
  const type = typeof part === 'object' && part !== null ? part.constructor.name : typeof part;
  return { kind: 'unknown', description: `a result part of type ${type} Arbor cannot show` };
}
