/**
 * Paths as the file system that holds them reads them, for the rules that refuse or protect files. A
 * repository is shared with macOS and Windows: there `.GIT`, `.git.`, `.git ` and
 * `.git::$INDEX_ALLOCATION` all open `.git`, and `.env::$DATA` is `.env`. A rule that compared
 * spellings would let any of those through, so the rules compare canonical names on every platform
 * (at worst a Linux file named `.GIT` is treated as `.git`, which only refuses more).
 */

/**
 * One path segment without case, without an alternate-stream suffix (`::$DATA`, `:name:$DATA`,
 * `::$INDEX_ALLOCATION`: everything from the first `:`) and without trailing dots and spaces, which
 * Windows drops. `.` and `..` stay as they are, and so does a segment that would become empty.
 */
export function canonicalSegment(segment: string): string {
  if (segment === '.' || segment === '..') return segment;
  const colon = segment.indexOf(':');
  const name = (colon >= 0 ? segment.slice(0, colon) : segment).replace(/[. ]+$/, '');
  return (name === '' ? segment : name).toLowerCase();
}

/** A `/`-separated path with every segment canonical (see `canonicalSegment`). */
export function canonicalPath(posixPath: string): string {
  return posixPath.split('/').map(canonicalSegment).join('/');
}

/** Whether any segment of a `/`-separated path is `.git`, however it is spelled. */
export function inGitFolder(posixPath: string): boolean {
  return posixPath.split('/').some((s) => canonicalSegment(s) === '.git');
}
