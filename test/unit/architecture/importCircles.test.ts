/**
 * No import circles in src/ or webview/, type-only imports included: a circle of types ties two parts as
 * tightly as a circle of values (neither can be read, moved or tested without the other), and eslint's
 * `no-cycle` does not see type-only imports. madge builds the import graph from the TypeScript sources
 * as the compiler resolves them. The layers between the host's rooms are eslint's (eslint.config.mjs).
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

interface MadgeResult {
  circular(): string[][];
  obj(): Record<string, string[]>;
}
type Madge = (paths: string[], config: Record<string, unknown>) => Promise<MadgeResult>;

const ROOT = path.resolve(__dirname, '../../..');
const madge = createRequire(import.meta.url)('madge') as Madge;

async function graphOf(folder: string, tsConfig: string): Promise<MadgeResult> {
  return madge([path.join(ROOT, folder)], {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: path.join(ROOT, tsConfig),
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
}

describe('import circles', () => {
  it.each([
    ['src', 'tsconfig.json'],
    ['webview', 'webview/tsconfig.json'],
  ])('finds none in %s/', async (folder, tsConfig) => {
    const graph = await graphOf(folder, tsConfig);
    // The graph is the real one: the extension's entry reaches its composition root through an import.
    const files = Object.keys(graph.obj());
    expect(files.length).toBeGreaterThan(folder === 'src' ? 300 : 30);
    expect(graph.circular().map((circle) => circle.join(' → '))).toEqual([]);
  }, 120_000);

  it('sees a circle made of type-only imports', async () => {
    const graph = await madge([path.join(ROOT, 'test/fixtures/importCircle')], {
      baseDir: ROOT,
      fileExtensions: ['ts'],
      tsConfig: path.join(ROOT, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false } },
    });
    expect(graph.circular()).toEqual([['test/fixtures/importCircle/first.ts', 'test/fixtures/importCircle/second.ts']]);
  });
});
