/**
 * Finds and reads the other tools' prompt files of a workspace folder, gives each a `/` name that no
 * other prompt has, and checks that the files they refer to are there. Reads nothing outside the folder:
 * a prompt file or folder whose real path leaves it is skipped with an error.
 */
import * as nodePath from 'node:path';
import type { WorkspaceFiles } from '../../files';
import { nodeFiles } from '../../nodeFiles';
import { gitBlobId, sha256Hex } from '../../hashes';
import type { PromptDiagnostic } from '../../libraryFiles/fileTypes';
import { parseClaudeCommand } from './claudeCommand';
import { parseContinuePrompt } from './continuePrompt';
import { parseCopilotPrompt } from './copilotPrompt';
import { FOREIGN_FOLDERS, type ForeignFolder, type ForeignParseResult, type ForeignPrompt } from './foreignTypes';

/** Options of `loadForeignPrompts`. */
export interface ForeignLoadOptions {
  files?: WorkspaceFiles;
  /** Names already taken (the workspace's own `/` prompts): a foreign prompt of such a name is offered as `source:name`. */
  reservedNames?: ReadonlySet<string>;
  /** Largest prompt file read, in bytes (default 1 MiB). */
  maxFileBytes?: number;
}

/** The foreign prompts of a workspace folder and every problem found in them. */
export interface ForeignPromptSet {
  prompts: ForeignPrompt[];
  /** Paths workspace-relative, `/` separators. */
  diagnostics: PromptDiagnostic[];
}

const MAX_DEPTH = 4;
const MAX_FILES = 500;

/** Reads `.github/prompts`, `.continue/prompts` and `.claude/commands` below `root` (the workspace folder). */
export async function loadForeignPrompts(root: string, options: ForeignLoadOptions = {}): Promise<ForeignPromptSet> {
  const files = options.files ?? nodeFiles;
  const maxBytes = options.maxFileBytes ?? 1024 * 1024;
  const realRoot = files.realPath ? await files.realPath(root).catch(() => root) : root;
  const diagnostics: PromptDiagnostic[] = [];
  const parsed: Array<{ result: NonNullable<ForeignParseResult['prompt']>; abs: string; bytes: Uint8Array }> = [];

  const inside = async (abs: string, rel: string): Promise<boolean> => {
    if (!files.realPath) return true;
    const real = await files.realPath(abs).catch(() => abs);
    const relative = nodePath.relative(realRoot, real);
    if (relative === '' || (!relative.startsWith('..') && !nodePath.isAbsolute(relative))) return true;
    diagnostics.push({ file: rel, line: 1, column: 1, severity: 'error', message: `${rel} links outside the workspace folder, so Arbor does not read it` });
    return false;
  };

  for (const folder of FOREIGN_FOLDERS) {
    const list: Array<{ rel: string; abs: string; sub: string[] }> = [];
    const walk = async (relDir: string, sub: string[]): Promise<void> => {
      const absDir = nodePath.join(root, ...relDir.split('/'));
      const stat = await files.stat(absDir);
      if (!stat || (stat.type !== 'directory' && stat.type !== 'symlink')) return;
      if (!(await inside(absDir, relDir))) return;
      const entries = await files.readDirectory(absDir).catch(() => []);
      for (const [name, type] of entries.sort(([a], [b]) => a.localeCompare(b))) {
        const rel = `${relDir}/${name}`;
        const abs = nodePath.join(absDir, name);
        const kind = type === 'symlink' ? (await files.stat(abs).catch(() => undefined))?.type : type;
        if (type === 'directory' && sub.length < MAX_DEPTH) await walk(rel, [...sub, name]);
        else if ((kind === 'file' || type === 'symlink') && folder.matches(name) && list.length < MAX_FILES) list.push({ rel, abs, sub });
      }
    };
    await walk(folder.folder, []);
    for (const f of list) {
      if (!(await inside(f.abs, f.rel))) continue;
      const stat = await files.stat(f.abs);
      if (stat && stat.size > maxBytes) {
        diagnostics.push({ file: f.rel, line: 1, column: 1, severity: 'error', message: `the file is larger than ${maxBytes} bytes, so it is not read` });
        continue;
      }
      const bytes = await files.readFile(f.abs).catch(() => undefined);
      if (!bytes) continue;
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
      } catch {
        diagnostics.push({ file: f.rel, line: 1, column: 1, severity: 'error', message: 'the file is not valid UTF-8: save it as UTF-8' });
        continue;
      }
      const result = parseFile(folder, f.rel, text, f.sub);
      diagnostics.push(...result.diagnostics);
      if (result.prompt) parsed.push({ result: result.prompt, abs: f.abs, bytes });
    }
  }

  const taken = new Set(options.reservedNames ?? []);
  const prompts: ForeignPrompt[] = [];
  for (const { result, abs, bytes } of parsed) {
    const { requestedName, ...rest } = result;
    const name = uniqueName(requestedName, result.source, taken);
    taken.add(name);
    prompts.push({ ...rest, name, absolutePath: abs, sha256: sha256Hex(bytes), gitBlobId: gitBlobId(bytes) });
    for (const ref of [...result.attachments, ...result.inlineFiles]) {
      const stat = await files.stat(nodePath.join(root, ...ref.path.split('/'))).catch(() => undefined);
      const type = stat?.type === 'symlink' ? 'file' : stat?.type;
      if (type !== 'file') {
        diagnostics.push({
          file: result.path,
          line: ref.line,
          column: ref.column,
          severity: 'error',
          message: type === 'directory' ? `${ref.written} is a folder: refer to a file` : `${ref.written}: ${ref.path} does not exist in the workspace`,
        });
      }
    }
  }
  return { prompts, diagnostics };
}

function parseFile(folder: ForeignFolder, rel: string, text: string, sub: string[]): ForeignParseResult {
  const fileName = rel.slice(rel.lastIndexOf('/') + 1);
  const base = folder.baseName(fileName);
  const input = { path: rel, text: text.replace(/\r\n/g, '\n') };
  if (folder.source === 'copilot') return parseCopilotPrompt(input, base);
  if (folder.source === 'continue') return parseContinuePrompt(input, base);
  return parseClaudeCommand(input, [...sub, base].join(':'));
}

/** `name`, or `source:name` when taken, or that with `-2`, `-3`… */
function uniqueName(name: string, source: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  const prefixed = `${source}:${name}`;
  if (!taken.has(prefixed)) return prefixed;
  for (let i = 2; ; i++) if (!taken.has(`${prefixed}-${i}`)) return `${prefixed}-${i}`;
}
