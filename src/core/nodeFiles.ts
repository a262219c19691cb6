import { promises as fs, watch as fsWatch } from 'node:fs';
import * as path from 'node:path';
import type { Disposable, FileStat, FileType, WorkspaceFiles } from './files';

function kind(d: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileType {
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isFile()) return 'file';
  if (d.isDirectory()) return 'directory';
  return 'other';
}

/** `WorkspaceFiles` on Node's `fs`, for tests, benchmarks and the command line. */
export const nodeFiles: WorkspaceFiles = {
  async readFile(p: string): Promise<Uint8Array> {
    return fs.readFile(p);
  },
  async readDirectory(p: string): Promise<Array<[string, FileType]>> {
    const entries = await fs.readdir(p, { withFileTypes: true });
    return entries.map((e) => [e.name, kind(e)]);
  },
  async stat(p: string): Promise<FileStat | undefined> {
    try {
      const s = await fs.lstat(p);
      return { type: kind(s), size: s.size, mtimeMs: s.mtimeMs };
    } catch (err: any) {
      if (err?.code === 'ENOENT' || err?.code === 'ENOTDIR') return undefined;
      throw err;
    }
  },
  async realPath(p: string): Promise<string> {
    return fs.realpath(p);
  },
  watch(dir: string, listener: (p: string) => void): Disposable {
    const w = fsWatch(dir, { recursive: true }, (_event, file) => {
      listener(file ? path.join(dir, file.toString()) : dir);
    });
    w.on('error', () => undefined);
    return { dispose: () => w.close() };
  },
};
