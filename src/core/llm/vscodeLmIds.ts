/**
 * Model ids of the chat models VS Code offers extensions (`vscode.lm`, Copilot's for users who have it).
 * Arbor names them `vscode:<vendor>/<id>`, a prefix no Ollama or OpenAI model name starts with, so one
 * model id says which provider answers it wherever ids are stored (chat metadata, `arbor.model`). Pure.
 */

/** The reserved prefix of VS Code model ids. */
export const VSCODE_MODEL_PREFIX = 'vscode:';

/** The provider name VS Code models are recorded under (`ProviderError.provider`, answer metadata). */
export const VSCODE_PROVIDER_NAME = 'vscode';

/** The label of the VS Code models' group in the model pickers. */
export const VSCODE_MODEL_GROUP = 'VS Code';

/** Arbor's id of a VS Code model: `vscode:copilot/gpt-4o`. */
export function vscodeModelId(vendor: string, id: string): string {
  return `${VSCODE_MODEL_PREFIX}${vendor}/${id}`;
}

/** Whether `model` names a VS Code model. */
export function isVscodeModelId(model: string | undefined): model is string {
  return typeof model === 'string' && model.trim().startsWith(VSCODE_MODEL_PREFIX);
}

/**
 * The vendor and id of a VS Code model id, or `undefined` when `model` is not one. The vendor ends at the
 * first `/`; the id is the rest (VS Code's own ids may hold `/` and `:`).
 */
export function parseVscodeModelId(model: string | undefined): { vendor: string; id: string } | undefined {
  if (!isVscodeModelId(model)) return undefined;
  const rest = model.trim().slice(VSCODE_MODEL_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { vendor: rest.slice(0, slash), id: rest.slice(slash + 1) };
}
