/**
 * Model names as people see them. Ollama's `name` and `name:latest` are one model (Ollama resolves a
 * name without a tag to `:latest`), so a list shows it once, under the shorter name. Pure.
 */

/** The name a model is listed under: `llama3.2:latest` is `llama3.2`; other tags are kept. */
export function modelKey(id: string): string {
  const trimmed = id.trim();
  return trimmed.endsWith(':latest') && trimmed.length > ':latest'.length ? trimmed.slice(0, -':latest'.length) : trimmed;
}

/** Whether two names mean the same model (`llama3.2` and `llama3.2:latest` do). */
export function sameModel(a: string, b: string): boolean {
  return modelKey(a) === modelKey(b);
}

/**
 * The models to offer in a picker: `current` and the listed ones, each once under its listed name,
 * sorted; `current` is the entry that stands for the model in use.
 */
export function modelChoices(current: string, listed: readonly string[]): { models: string[]; current: string } {
  const keys = new Set([current, ...listed].map(modelKey).filter(Boolean));
  return { models: [...keys].sort((a, b) => a.localeCompare(b)), current: modelKey(current) };
}
