import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useWorkbench } from './harness/session';

describe('the packaged extension in a real VS Code', () => {
  const session = useWorkbench();

  it('is installed from the .vsix into the extensions folder', async () => {
    const installed = await readdir(session.env.extensionsDir);
    expect(installed.some((name) => name.startsWith('arbor-dev.arbor-'))).toBe(true);
  });

  it('shows the Arbor icon in the activity bar and opens the Conversations view', async () => {
    const { workbench } = session;
    await expect.poll(() => workbench.arborIcon().count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await workbench.openArborView();
    expect(await workbench.sidebarTitle().textContent()).toMatch(/arbor/i);
  });
});
