import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A temporary folder of prompt files for a test; `remove()` deletes it. */
export interface TempPrompts {
  dir: string;
  write(rel: string, content: string | Uint8Array): Promise<string>;
  remove(): Promise<void>;
}

/** Creates a real temp folder holding `files` (relative path to content). */
export async function tempPrompts(files: Record<string, string> = {}): Promise<TempPrompts> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-prompts-'));
  const dir = path.join(root, 'prompts');
  await fs.mkdir(dir);
  const write = async (rel: string, content: string | Uint8Array) => {
    const abs = path.join(dir, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
    return abs;
  };
  for (const [rel, content] of Object.entries(files)) await write(rel, content);
  return { dir, write, remove: () => fs.rm(root, { recursive: true, force: true }) };
}

/** A retrieval adapter for tests: returns fixed results after an optional delay and counts its searches. */
export class CountingAdapter {
  calls: Array<{ query: string; k: number; filters?: Record<string, unknown> }> = [];
  active = 0;
  maxActive = 0;

  constructor(
    private readonly results: Array<{ content: string; score: number; path?: string; startLine?: number; endLine?: number }>,
    private readonly delayMs = 0,
    private readonly fail?: string,
  ) {}

  async search(query: string, k: number, filters?: Record<string, unknown>) {
    this.calls.push({ query, k, filters });
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.fail) throw new Error(this.fail);
      return this.results.slice(0, k);
    } finally {
      this.active--;
    }
  }
}
