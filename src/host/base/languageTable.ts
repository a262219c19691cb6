/**
 * The language of a file from its name, by the table VS Code itself uses: the `languages` every
 * installed extension (the built-in ones included) contributes, with their file extensions and
 * file names. Used to fence a `#file` attachment with its language, as a selection is fenced with
 * its editor's. Pure: the host hands in the extensions' manifests.
 */
import * as path from 'node:path';

/** One entry of a manifest's `contributes.languages`. */
interface LanguageContribution {
  id?: unknown;
  extensions?: unknown;
  filenames?: unknown;
}

/** A lookup from file name to language id. */
export interface LanguageTable {
  /** The language id of a file (by its name, then its longest matching extension), if one is known. */
  languageOf(filePath: string): string | undefined;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length > 0) : []);

/** Builds the table from extension manifests (`packageJSON` of each extension); the first claim of a name wins. */
export function languageTable(manifests: readonly unknown[]): LanguageTable {
  const byExtension = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const manifest of manifests) {
    const languages = (manifest as { contributes?: { languages?: unknown } } | undefined)?.contributes?.languages;
    if (!Array.isArray(languages)) continue;
    for (const lang of languages as LanguageContribution[]) {
      if (typeof lang?.id !== 'string' || !lang.id) continue;
      for (const ext of strings(lang.extensions)) if (!byExtension.has(ext.toLowerCase())) byExtension.set(ext.toLowerCase(), lang.id);
      for (const name of strings(lang.filenames)) if (!byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), lang.id);
    }
  }
  return {
    languageOf(filePath: string): string | undefined {
      const base = path.posix.basename(filePath.replace(/\\/g, '/')).toLowerCase();
      const named = byName.get(base);
      if (named) return named;
      // ".d.ts" before ".ts": the longest extension that is listed.
      for (let dot = base.indexOf('.'); dot >= 0; dot = base.indexOf('.', dot + 1)) {
        const found = byExtension.get(base.slice(dot));
        if (found) return found;
      }
      return undefined;
    },
  };
}
