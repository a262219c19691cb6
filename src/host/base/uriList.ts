/**
 * The `.json` file URIs in a `text/uri-list` (RFC 2483: one URI a line, CRLF or LF, `#` lines are
 * comments), which is what VS Code delivers for files dragged onto a tree from its Explorer or the OS.
 */
export function jsonUrisOf(uriList: string): string[] {
  return uriList
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .filter((uri) => /\.json$/i.test(uri.replace(/[?#].*$/, '')));
}
