/**
 * Line endings of text files: edits are matched and diffed on `\n` text, then written back with the
 * ending the file already uses, so a CRLF file stays CRLF whatever line endings the model wrote.
 */

/** A file's line ending. */
export type Eol = '\n' | '\r\n';

/** The line ending most of `text`'s line breaks use; `\n` for text without any (or a tie). */
export function detectEol(text: string): Eol {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/** `text` with every `\r\n` turned into `\n` (a lone `\r` stays). */
export function toLf(text: string): string {
  return text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
}

/** `text` with every line break written as `eol`. */
export function withEol(text: string, eol: Eol): string {
  const lf = toLf(text);
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}
