/**
 * Which workspace folder a restored file goes into. A checkpoint names the folder its change was made
 * in (by name: a teammate's clone of the same project lives at another path); a change recorded before
 * folders were has none. Restore never guesses silently between folders, and never creates a file of
 * another project in this one without the user ticking it by name. Pure (no `vscode`).
 */
import * as path from 'node:path';

/** Where a stored path goes: a folder, with the asks it needs (each a sentence naming the file), or a refusal. */
export type FolderChoice = { folder: string; asks: string[] } | { refusal: string };

/**
 * The open folder for a stored `relPath` recorded in the folder named `recorded` (undefined for an old
 * row): the open folder of that name; with one folder open and another name, that folder after an
 * ask; an old row goes into the only folder open, or after an ask into the first of several.
 */
export function chooseFolder(folders: readonly string[], relPath: string, recorded: string | undefined): FolderChoice {
  if (folders.length === 0) return { refusal: `Restore does not write "${relPath}": no workspace folder is open.` };
  if (recorded === undefined) {
    if (folders.length === 1) return { folder: folders[0], asks: [] };
    return {
      folder: folders[0],
      asks: [`${relPath} was recorded without its workspace folder (by an earlier Arbor), and this workspace has ${folders.length}: Restore would write it into "${path.basename(folders[0])}".`],
    };
  }
  const named = folders.filter((f) => path.basename(f) === recorded);
  if (named.length === 1) return { folder: named[0], asks: [] };
  if (named.length > 1) return { refusal: `Restore does not write "${relPath}": ${named.length} open folders are named "${recorded}", so it cannot tell which one it belongs to.` };
  if (folders.length === 1) {
    return { folder: folders[0], asks: [`${relPath} was changed in the folder "${recorded}", which is not open here: Restore would write it into "${path.basename(folders[0])}".`] };
  }
  return { refusal: `Restore does not write "${relPath}": it was changed in the folder "${recorded}", which is not open in this window. Open that folder to restore it.` };
}
