/**
 * Cutting long text for a model: the head and the tail are kept and the middle is marked as left out,
 * so both how something starts (a command, a file's top) and how it ends (the error) survive.
 */

/**
 * Keeps the first and last `max / 2` characters of `text` longer than `max`, with `note(n)` saying
 * that `n` characters in between were left out; shorter text (or `max <= 0`) is returned as it is.
 */
export function headAndTail(text: string, max: number, note: (omitted: number) => string = (n) => `[… ${n} characters omitted …]`): string {
  if (max <= 0 || text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n${note(text.length - 2 * half)}\n${text.slice(text.length - half)}`;
}
