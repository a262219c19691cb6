import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OpenAIProvider, OpenConversations, SqlJsConversationStorage } from '../../../../src/core/index';

/** The fixtures of other tools' files (see test/fixtures/imports/README.md). */
export const FIXTURES = path.join(__dirname, '../../../fixtures/imports');

/** A fixture parsed as JSON. */
export async function fixture(name: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(FIXTURES, name), 'utf8'));
}

/** A real sql.js store in a temp folder and the open conversations over it, as the extension has them. */
export async function openStore(): Promise<{ open: OpenConversations; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-imports-'));
  const storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
  // Nothing here calls the model; the provider only fills the required option.
  const llm = new OpenAIProvider({ baseURL: 'http://127.0.0.1:9/v1', model: 'unused', maxRetries: 0 });
  const open = new OpenConversations({ storage, managerOptions: () => ({ llm }) });
  return {
    open,
    async close() {
      open.dispose();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
