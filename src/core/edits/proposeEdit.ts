/**
 * The change a file tool would make, computed without writing anything: the text before and after and
 * the diff between them. An approval card shows it before the user allows the call; the tool computes
 * it again when it runs (the file may have changed in between) and writes `after`.
 */
import { detectEol, withEol } from './lineEndings';
import { applySearchReplace, type AppliedEdit, type SearchReplaceEdit } from './searchReplace';
import { diffText, type TextDiff } from './textDiff';

/** A proposed change of one file. */
export interface ProposedChange {
  /** The file's text now; `undefined` when the change creates it. */
  before: string | undefined;
  after: string;
  diff: TextDiff;
  /** Where each search/replace edit landed (empty for a whole-content write). */
  applied: AppliedEdit[];
}

/**
 * `edits` applied to `before` (see `applySearchReplace`), with the diff; `path` names the file in the
 * diff and in error messages. Throws `EditMatchError` when an edit cannot be placed.
 */
export function proposeEdit(before: string, edits: readonly SearchReplaceEdit[], path: string): ProposedChange {
  const { text, applied } = applySearchReplace(before, edits, path);
  return { before, after: text, diff: diffText(before, text, { path }), applied };
}

/**
 * A whole new content for a file: `before` undefined creates it as written; over an existing file with
 * line breaks, the content takes the line ending that file mostly uses.
 */
export function proposeContent(before: string | undefined, content: string, path: string): ProposedChange {
  const after = before === undefined || !before.includes('\n') ? content : withEol(content, detectEol(before));
  return { before, after, diff: diffText(before, after, { path }), applied: [] };
}
