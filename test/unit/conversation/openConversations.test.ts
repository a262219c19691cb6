import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, ConversationNotFoundError, OpenAIProvider, OpenConversations, SqlJsConversationStorage } from '../../../src/core/index';

const ROOT = path.resolve(__dirname, '../../..');
const WRITER = path.join(ROOT, 'test/fixtures/managerWriter.ts');

// Nothing in this file calls the model; the provider only fills the required option.
const llm = new OpenAIProvider({ baseURL: 'http://127.0.0.1:9/v1', model: 'unused', maxRetries: 0 });

let dir: string;
let file: string;
let storage: SqlJsConversationStorage;
let open: OpenConversations;
let events: string[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-open-'));
  file = path.join(dir, 'store.db');
  storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
  open = new OpenConversations({ storage, managerOptions: () => ({ llm }) });
  events = [];
  open.onDidChange((id) => events.push(id));
});

afterEach(async () => {
  open.dispose();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** Another process adds a user message to the conversation through its own manager; resolves the new node's id. */
function addFromAnotherProcess(conversationId: string, content: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, conversationId, content], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const added = /^ADDED (.*)$/m.exec(stdout);
      if (code === 0 && added) resolve(added[1]);
      else reject(new Error(`the writer exited with ${code}: ${stderr}`));
    });
  });
}

/** Resolves with the next conversation id `open` announces; rejects when none comes within 10 s. */
function nextChange(): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no change was announced')), 10_000);
    const sub = open.onDidChange((id) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(id);
    });
  });
}

/**
 * Lets every check the store's last report started finish: they run in microtasks ahead of this
 * poll's file reads, so a second announcement would be in `events` by the time it resolves.
 */
async function settle(): Promise<void> {
  await storage.poll();
  await storage.poll();
}

describe('OpenConversations', () => {
  it('shares one manager per conversation and does not keep a failed open', async () => {
    const created = await open.create({ metadata: { title: 'T' } });
    expect(await open.get(created.conversationId)).toBe(created);
    const other = await ConversationManager.create({ llm, storage });
    const first = open.get(other.conversationId);
    expect(open.get(other.conversationId)).toBe(first);
    expect(await first).not.toBe(other);
    expect((await first).getMetadata()).toEqual({});

    await expect(open.get('missing')).rejects.toBeInstanceOf(ConversationNotFoundError);
    expect(open.isOpen('missing')).toBe(false);
  });

  it('announces a write through an open manager once, not again when the store reports it back', async () => {
    const manager = await open.create();
    events.length = 0;
    await manager.addMessage({ role: 'user', content: 'hello', raw: true });
    await settle();
    expect(events).toEqual([manager.conversationId]);
  });

  it('announces a change to a conversation that is not open here', async () => {
    const elsewhere = await ConversationManager.create({ llm, storage });
    await settle();
    expect(events).toEqual([elsewhere.conversationId]);
    expect(open.isOpen(elsewhere.conversationId)).toBe(false);
  });

  it('reloads an open manager when another process adds a message, and announces it once', async () => {
    const manager = await open.create();
    const mine = await manager.addMessage({ role: 'user', content: 'from here', raw: true });
    await settle();
    events.length = 0;

    const theirs = await addFromAnotherProcess(manager.conversationId, 'from another window');
    expect(manager.getCurrentNodes().map((n) => n.nodeId)).not.toContain(theirs);
    const changed = nextChange();
    expect(await storage.poll()).toContain(manager.conversationId);
    expect(await changed).toBe(manager.conversationId);

    expect(await open.get(manager.conversationId)).toBe(manager);
    expect(manager.getNode(theirs).message.content).toBe('from another window');
    expect(manager.currentNodeId).toBe(theirs);
    expect(manager.getCurrentNodes().map((n) => n.message.content).slice(-2)).toEqual(['from here', 'from another window']);
    expect(manager.getNode(theirs).parentId).toBe(mine.nodeId);
    await settle();
    expect(events).toEqual([manager.conversationId]);
  }, 60_000);

  it('while busy, leaves the manager alone and catches up when the work ends', async () => {
    const manager = await open.create();
    events.length = 0;
    let theirs = '';
    await open.whileBusy(manager.conversationId, async () => {
      theirs = await addFromAnotherProcess(manager.conversationId, 'while busy');
      await settle();
      expect(manager.getAllNodes().map((n) => n.nodeId)).not.toContain(theirs);
      expect(events).toEqual([]);
    });
    const changed = nextChange();
    expect(await changed).toBe(manager.conversationId);
    expect(manager.getNode(theirs).message.content).toBe('while busy');
  }, 60_000);

  it('drops the manager of a conversation deleted elsewhere and announces it', async () => {
    const manager = await open.create();
    events.length = 0;
    const changed = nextChange();
    await storage.deleteConversation(manager.conversationId);
    expect(await changed).toBe(manager.conversationId);
    await settle();
    expect(open.isOpen(manager.conversationId)).toBe(false);
    await expect(open.get(manager.conversationId)).rejects.toBeInstanceOf(ConversationNotFoundError);
  });

  it('forget() closes a manager and announces it; dispose() stops announcing', async () => {
    const manager = await open.create();
    events.length = 0;
    open.forget(manager.conversationId);
    expect(events).toEqual([manager.conversationId]);
    expect(open.isOpen(manager.conversationId)).toBe(false);
    // The forgotten manager's own writes are no longer relayed, the store's report of them is.
    await manager.addMessage({ role: 'user', content: 'after forget', raw: true });
    await settle();
    expect(events).toEqual([manager.conversationId, manager.conversationId]);

    const kept = await open.create();
    open.dispose();
    events.length = 0;
    await kept.addMessage({ role: 'user', content: 'after dispose', raw: true });
    await ConversationManager.create({ llm, storage });
    await settle();
    expect(events).toEqual([]);
  });
});
