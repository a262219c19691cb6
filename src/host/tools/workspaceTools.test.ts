import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFiles, ToolExecutor } from '../../core/index';
import { locatePath, outsidePath } from './workspaceAccess';
import { createWorkspaceTools } from './workspaceTools';

describe('createWorkspaceTools', () => {
  it('offers four read-only built-in tools whose schemas compile, with descriptions a model can use', async () => {
    const offered = createWorkspaceTools({ folders: () => ['/w'], files: nodeFiles, searchIndex: async () => undefined, ripgrepPath: () => 'rg' });
    expect(offered.map((o) => o.tool.name)).toEqual(['read_file', 'list_files', 'search_workspace', 'grep']);
    for (const o of offered) {
      expect(o.source).toBe('builtin');
      expect(o.displayName).toBe(o.tool.name);
      expect(o.tool.readOnly).toBe(true);
      expect(o.tool.description.length).toBeGreaterThan(100);
    }
    const executor = new ToolExecutor(offered.map((o) => o.tool));
    await expect(executor.ready()).resolves.toBeUndefined();
    // Only read_file can name a path outside the workspace; the others refuse such paths themselves.
    expect(offered.filter((o) => o.outsideWorkspace).map((o) => o.tool.name)).toEqual(['read_file']);
  });
});

describe('locatePath and outsidePath', () => {
  it('resolves relative paths in the first folder (or the one they name), absolute and ~ paths as they are', () => {
    expect(locatePath(['/w/a', '/w/b'], 'src/x.ts')).toEqual({ abs: '/w/a/src/x.ts', inside: true });
    expect(locatePath(['/w/a', '/w/b'], 'b/src/x.ts')).toEqual({ abs: '/w/b/src/x.ts', inside: true });
    expect(locatePath(['/w/a', '/w/b'], '../b/x.ts')).toEqual({ abs: '/w/b/x.ts', inside: true });
    expect(locatePath(['/w/a'], '../c/x.ts')).toEqual({ abs: '/w/c/x.ts', inside: false });
    expect(locatePath([], 'x.ts')).toBeUndefined();
    expect(outsidePath(['/w/a'], '~/.bashrc')).toBe(path.join(os.homedir(), '.bashrc'));
    expect(outsidePath(['/w/a'], '/w/a/x')).toBeUndefined();
    expect(outsidePath(['/w/a'], '')).toBeUndefined();
    expect(outsidePath(['/w/a'], 42)).toBeUndefined();
  });
});
