/**
 * Answers a model or an MCP tool could write to freeze the chat (issue 22, section 6), shared by the
 * webview tests and bench/pathologicalAnswers.ts. Each ends with a marker, so a test can tell the
 * whole text arrived.
 */

/** The end marker of every answer here. */
export const END = 'END-OF-ANSWER';

/** A `rows`×`cols` Markdown table (400×300 is 246 KB). */
export function bigTable(rows = 400, cols = 300): string {
  const row = (cell: (j: number) => string) => `|${Array.from({ length: cols }, (_, j) => cell(j)).join('|')}|`;
  const lines = [row((j) => `h${j % 10}`), row(() => '-')];
  for (let i = 0; i < rows; i += 1) lines.push(row((j) => String((i + j) % 10)));
  return `${lines.join('\n')}\n\n${END}`;
}

/** `*a` twenty thousand times (40 KB): emphasis the parser pairs up in one paragraph. */
export function emphasisRun(count = 20_000): string {
  return `${'*a'.repeat(count)} ${END}`;
}

/** A list nested `depth` levels deep on one line (`- - - …`). */
export function deepList(depth = 2_000): string {
  return `${'- '.repeat(depth)}${END}`;
}

/** `[` ten thousand times: every one a link label the parser tries to close. */
export function openBrackets(count = 10_000): string {
  return `${'['.repeat(count)} ${END}`;
}

/** An ordinary answer of about `bytes` characters: headings, paragraphs, lists, links and code, repeated. */
export function ordinaryAnswer(bytes = 1024 * 1024): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const part = `## Step ${i}\n\nRead the **config** with \`loadConfig()\` and see [the docs](https://example.com/${i}).\n\n- check ${i}\n- cache ${i}\n\n\`\`\`ts\nexport const value${i} = compute(${i});\n\`\`\`\n\n`;
    parts.push(part);
    size += part.length;
  }
  return `${parts.join('')}${END}`;
}

/** Cuts `text` into `count` deltas of nearly equal length that join back to it. */
export function deltas(text: string, count = 200): string[] {
  const size = Math.ceil(text.length / count);
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
}
