/**
 * The backtick fence for a Markdown code block holding `text`: one backtick longer than the longest
 * run inside it (at least three), so nothing in the text can close the block early. A loop, not
 * `Math.max(...runs)`, since text with hundreds of thousands of runs would overflow the stack.
 */
export function fenceFor(text: string): string {
  let longest = 2;
  for (const match of text.matchAll(/`+/g)) if (match[0].length > longest) longest = match[0].length;
  return '`'.repeat(longest + 1);
}
