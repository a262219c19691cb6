/**
 * A damaged journal loses nothing that is intact: each line carries its own length and checksum, so
 * the entries after a damaged line are still applied, the damaged bytes are copied aside, and the
 * user hears of it once (log and notification) with the file named.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewNode } from './storage';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation, sampleNode } from './storageTestData';

let dir: string;
let file: string;
let journal: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-journal-damage-'));
  file = path.join(dir, 'arbor.sqlite');
  journal = file + '.arbor-journal';
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function node(seed: number): NewNode {
  const { nodeId: _id, position: _position, ...rest } = sampleNode('', '', 200, seed);
  rest.message.content = `entry ${seed}`;
  return rest;
}

/** A store whose journal holds a save and then `count` acknowledged adds, never checkpointed. */
async function journalWithAdds(count: number): Promise<string[]> {
  const storage = await SqlJsConversationStorage.open(file, { checkpointEntries: 1000 });
  await storage.saveConversation(sampleConversation('c', 1));
  for (let i = 1; i <= count; i++) await storage.applyChange('c', { addNodes: [node(i)], updatedAt: new Date().toISOString() });
  // No close: a close would fold the journal into the database file.
  const lines = (await fs.readFile(journal, 'utf8')).split('\n');
  expect(lines.length).toBe(count + 3); // header, save, adds, and the empty string after the last newline
  return lines;
}

async function contents(storage: SqlJsConversationStorage): Promise<string[]> {
  return ((await storage.loadConversation('c'))?.nodes ?? []).filter((n) => n.parentId !== null).map((n) => n.message.content);
}

async function openNoting(): Promise<{ storage: SqlJsConversationStorage; notices: string[] }> {
  const notices: string[] = [];
  const storage = await SqlJsConversationStorage.open(file, { notify: (message) => notices.push(message) });
  return { storage, notices };
}

describe('a damaged journal', () => {
  it('applies the entries after one changed byte, copies the damaged line aside and says so once', async () => {
    const lines = await journalWithAdds(6);
    // Entry 3 of 6 (line 0 is the header, line 1 the save): change one byte of its text.
    const damagedLine = lines[4].replace('entry 3', 'entry 8');
    lines[4] = damagedLine;
    await fs.writeFile(journal, lines.join('\n'));

    const first = await openNoting();
    expect(await contents(first.storage)).toEqual(['entry 1', 'entry 2', 'entry 4', 'entry 5', 'entry 6']);
    expect(first.notices).toHaveLength(1);
    expect(first.notices[0]).toContain(journal);
    expect(first.notices[0]).toContain('1 damaged line');
    const copies = (await fs.readdir(dir)).filter((name) => name.startsWith('arbor.sqlite.arbor-journal.damaged-'));
    expect(copies).toHaveLength(1);
    expect(await fs.readFile(path.join(dir, copies[0]), 'utf8')).toBe(`${damagedLine}\n`);
    await first.storage.close();

    // Told once: the intact entries are in the database file now, and the damage is gone from the journal.
    const second = await openNoting();
    expect(second.notices).toEqual([]);
    expect(await contents(second.storage)).toEqual(['entry 1', 'entry 2', 'entry 4', 'entry 5', 'entry 6']);
    await second.storage.close();
  });

  it('applies every entry around a garbage line inserted in the middle', async () => {
    const lines = await journalWithAdds(6);
    lines.splice(4, 0, 'J 12 0123456789abcdef {"garbage":1}', 'not a journal line at all');
    await fs.writeFile(journal, lines.join('\n'));
    const { storage, notices } = await openNoting();
    expect(await contents(storage)).toEqual(['entry 1', 'entry 2', 'entry 3', 'entry 4', 'entry 5', 'entry 6']);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('2 damaged lines');
    await storage.close();
  });

  it('recovers the entry after a newline that a changed byte turned into another character', async () => {
    const lines = await journalWithAdds(4);
    // Lines 3 and 4 run together: entry 2 is damaged, entry 3 after it is whole.
    lines.splice(3, 2, `${lines[3]}X${lines[4]}`);
    await fs.writeFile(journal, lines.join('\n'));
    const { storage, notices } = await openNoting();
    expect(await contents(storage)).toEqual(['entry 1', 'entry 3', 'entry 4']);
    expect(notices).toHaveLength(1);
    await storage.close();
  });

  it('when two windows share the store, the one that meets the damage first repairs it and both see every intact entry', async () => {
    const notices: string[] = [];
    const writer = await SqlJsConversationStorage.open(file, { checkpointEntries: 1000, notify: (m) => notices.push(`writer: ${m}`) });
    await writer.saveConversation(sampleConversation('c', 1));
    const reader = await SqlJsConversationStorage.open(file, { notify: (m) => notices.push(`reader: ${m}`) });
    expect(await contents(reader)).toEqual([]);
    await writer.applyChange('c', { addNodes: [node(1)], updatedAt: new Date().toISOString() });
    // Damage lands in the journal between two of the writer's entries (a disk error, say).
    await fs.appendFile(journal, 'J 5 ffffffffffffffff {"x"}\n');
    await writer.applyChange('c', { addNodes: [node(2)], updatedAt: new Date().toISOString() });
    expect(await contents(reader)).toEqual(['entry 1', 'entry 2']);
    expect(await contents(writer)).toEqual(['entry 1', 'entry 2']);
    // The writer met it on its next write (it catches up before writing); told once, not per window.
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^writer: .*1 damaged line/);
    await reader.close();
    await writer.close();
  });
});
