/**
 * A damaged database file is caught and rebuilt, not carried on: SQLite's quick check runs on every
 * open, and a read that meets damaged data (a malformed page, JSON that no longer parses) rebuilds
 * the store from what is readable. The damaged file is kept aside, the journal's later changes are
 * applied on top, every conversation that comes out opens, and the user is told once what was saved.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, SqlJsConversationStorage, type LLMProvider } from '../../../src/core/index';
import { sampleConversation } from '../../../src/core/storage/storageTestData';

const llm = { name: 'none' } as unknown as LLMProvider;
let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-store-damage-'));
  file = path.join(dir, 'arbor.sqlite');
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function openNoting(): Promise<{ storage: SqlJsConversationStorage; notices: string[] }> {
  const notices: string[] = [];
  const storage = await SqlJsConversationStorage.open(file, { notify: (message) => notices.push(message) });
  return { storage, notices };
}

/** 30 conversations of 20 messages, checkpointed into the file. */
async function fill(): Promise<void> {
  const storage = await SqlJsConversationStorage.open(file);
  for (let c = 0; c < 30; c++) await storage.saveConversation(sampleConversation(`conv-${String(c).padStart(2, '0')}`, 20));
  await storage.close();
}

async function expectEveryListedConversationOpens(storage: SqlJsConversationStorage): Promise<number> {
  const listed = await storage.listConversations({ limit: 1000 });
  for (const summary of listed) {
    const manager = await ConversationManager.resume(summary.conversationId, { llm, storage });
    expect(manager.getHistory().length).toBeGreaterThanOrEqual(0);
  }
  return listed.length;
}

describe('a damaged database file', () => {
  it('fails its integrity check on open, is moved aside and rebuilt from what is readable, with the journal on top', async () => {
    await fill();
    // Changes after the checkpoint live in the journal only.
    const writer = await SqlJsConversationStorage.open(file);
    await writer.updateMetadata('conv-29', { title: 'Changed after the checkpoint' });
    const { size } = await fs.stat(file);
    const pages = size / 4096;
    expect(pages).toBeGreaterThan(20);
    // Random bytes over a whole page in the middle of the nodes: a disk error, say.
    const handle = await fs.open(file, 'r+');
    await handle.write(randomBytes(4096), 0, 4096, Math.floor(pages / 2) * 4096);
    await handle.close();

    const { storage, notices } = await openNoting();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/was damaged \(its integrity check fails/);
    const aside = (await fs.readdir(dir)).filter((name) => name.startsWith('arbor.sqlite.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(notices[0]).toContain(aside[0]);
    const opened = await expectEveryListedConversationOpens(storage);
    expect(opened).toBeGreaterThan(0);
    expect(notices[0]).toContain(`${opened} conversation(s)`);
    const conv29 = await storage.loadConversation('conv-29');
    expect(conv29?.metadata.title).toBe('Changed after the checkpoint');
    await storage.close();

    const again = await openNoting();
    expect(again.notices).toEqual([]);
    expect(await expectEveryListedConversationOpens(again.storage)).toBe(opened);
    await again.storage.close();
    await writer.close().catch(() => undefined);
  });

  it('rebuilds the store when a read meets JSON that no longer parses, keeping the message text', async () => {
    await fill();
    // Damage one node's metadata in a way SQLite's page checks cannot see.
    const SQL = await initSqlJs();
    const db = new SQL.Database(await fs.readFile(file));
    db.run(`UPDATE nodes SET metadata = '{"seed": 3, "broken' WHERE seq = 4 AND conversation = (SELECT key FROM conversations WHERE id = 'conv-07')`);
    await fs.writeFile(file, db.export());
    db.close();

    const { storage, notices } = await openNoting();
    expect(notices).toEqual([]);
    const state = await storage.loadConversation('conv-07');
    expect(state?.nodes).toHaveLength(20);
    const damaged = state?.nodes.find((n) => n.nodeId === 'n4');
    expect(damaged?.metadata).toEqual({});
    expect(damaged?.message.content.length).toBeGreaterThan(100);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/failed on damaged data \(SyntaxError/);
    expect(notices[0]).toContain('30 conversation(s) with 600 message(s)');
    expect(notices[0]).toContain('1 message(s) kept their text but lost their details');
    expect(await expectEveryListedConversationOpens(storage)).toBe(30);
    await storage.close();
    expect((await fs.readdir(dir)).filter((name) => name.startsWith('arbor.sqlite.corrupt-'))).toHaveLength(1);
  });
});
