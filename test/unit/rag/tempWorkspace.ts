/** Real temp folders and a read-counting `WorkspaceFiles` for the retrieval tests. */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeFiles } from '../../../src/core/nodeFiles';
import type { Logger, WorkspaceFiles } from '../../../src/core/files';

/** Makes a temp folder and writes `files` (relative path to content) into it. */
export async function makeTree(files: Record<string, string | Uint8Array>, prefix = 'arbor-rag-'): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await writeTree(root, files);
  return root;
}

export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
}

/** Writes a file and moves its mtime forward, so a change is visible even within the clock's resolution. */
export async function touchWrite(abs: string, content: string, secondsAhead = 10): Promise<void> {
  await fs.writeFile(abs, content);
  const t = new Date(Date.now() + secondsAhead * 1000);
  await fs.utimes(abs, t, t);
}

/** `nodeFiles` that records every path read. */
export function countingFiles(): WorkspaceFiles & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    readFile: (p) => {
      reads.push(p);
      return nodeFiles.readFile(p);
    },
    readDirectory: (p) => nodeFiles.readDirectory(p),
    stat: (p) => nodeFiles.stat(p),
    realPath: (p) => nodeFiles.realPath!(p),
  };
}

/** Reads of files other than `.gitignore` rules. */
export function contentReads(reads: string[]): string[] {
  return reads.filter((p) => path.basename(p) !== '.gitignore');
}

/** A logger that keeps its messages. */
export function memoryLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug: () => undefined, info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}
