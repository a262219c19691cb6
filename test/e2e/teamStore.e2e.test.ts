import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, inject, it } from 'vitest';
import { PostgresConversationStorage } from '../../src/core/storage/postgres/postgresConversationStorage';
import { describeWithPostgres } from '../fixtures/postgresServer';
import { ChatPage } from './harness/chat';
import { prepareOwnSandbox, startCodeServer, writeUserSettings, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { Workbench, launchBrowser } from './harness/workbench';

/**
 * The team store in two VS Code windows: a real PostgreSQL (Debian's binaries, started by the test),
 * its schema made by an owner role, one team and two people, each person in their own code-server
 * with their own user-data folder. Alice's role needs a password (scram-sha-256), set with
 * "Arbor: Set Team Store Password"; Bob's is trusted. A message Alice sends appears in Bob's tree,
 * and once Bob has the chat open, Alice's next message appears in it without a reload.
 */
describeWithPostgres('team store in two windows', (server) => {
  const env = inject('arborE2e');
  const ALICE_PASSWORD = 'leaf-litter-7';
  const question = 'Which trees shed their bark in strips?';
  const followUp = 'And which keep it smooth?';
  const echo = (text: string) => `[arbor-test-model] Echo: ${text}`;
  let browser: Browser | undefined;
  const windows: Array<{ sandbox: Sandbox; server: RunningCodeServer; workbench: Workbench }> = [];
  const alice = () => windows[0].workbench;
  const bob = () => windows[1].workbench;

  beforeAll(async () => {
    const pg = server();
    // The owner role owns the database and runs the migrations (it creates the arbor_users group role).
    await pg.psql('CREATE ROLE arbor_owner LOGIN CREATEROLE;');
    const db = await pg.createDatabase('arbor_team_e2e', 'arbor_owner');
    const owner = await PostgresConversationStorage.open({ connectionString: pg.url('arbor_owner', db), migrate: true });
    await owner.close();
    await pg.psql(
      `CREATE ROLE team_bark NOLOGIN; GRANT arbor_users TO team_bark;
       CREATE ROLE alice LOGIN PASSWORD '${ALICE_PASSWORD}'; GRANT team_bark TO alice;
       CREATE ROLE bob LOGIN; GRANT team_bark TO bob;`,
      db,
    );
    // Alice must give her password over TCP; everyone else stays trusted (the first matching line wins).
    const hba = path.join(pg.dir, 'data', 'pg_hba.conf');
    await writeFile(hba, `host all alice 127.0.0.1/32 scram-sha-256\n${await readFile(hba, 'utf8')}`);
    await pg.psql('SELECT pg_reload_conf();');

    browser = await launchBrowser();
    for (const person of ['alice', 'bob']) {
      const sandbox = await prepareOwnSandbox(`teamStore-${person}`, env.fakeLlmPort);
      await writeUserSettings(
        sandbox,
        {
          'arbor.storage.kind': 'postgres',
          'arbor.storage.postgres.url': `postgres://${person}@127.0.0.1:${pg.port}/${db}`,
          'arbor.storage.postgres.ssl': 'off',
        },
        { merge: true },
      );
      const running = await startCodeServer(sandbox);
      windows.push({ sandbox, server: running, workbench: await Workbench.open(browser, running.url) });
    }
  }, 300_000);

  beforeEach((context) => {
    context.onTestFailed(async () => {
      for (const [i, w] of windows.entries()) {
        const file = await w.workbench.screenshot(`teamStore-${i === 0 ? 'alice' : 'bob'}-${context.task.name}`);
        console.error(`[e2e] screenshot of the failure: ${file}`);
      }
    });
  });

  afterAll(async () => {
    await browser?.close();
    for (const w of windows) await w.server.stop();
  });

  it("sets Alice's password in secret storage, and her message reaches Bob's tree and open chat", async () => {
    // The password, typed into the command's password box (never in settings).
    await alice().runCommand('Arbor: Set Team Store Password');
    const box = alice().page.locator('.quick-input-widget .quick-input-box input');
    await box.waitFor({ timeout: 15_000 });
    expect(await box.getAttribute('type')).toBe('password');
    await box.fill(ALICE_PASSWORD);
    await box.press('Enter');
    // Stored once the command says so (a command run before that would open the store without it).
    await alice().page.locator('.notification-toast', { hasText: 'The team store password is saved.' }).first().waitFor({ timeout: 15_000 });
    const settings = await readFile(path.join(windows[0].sandbox.dataDir, 'User', 'settings.json'), 'utf8');
    expect(settings).not.toContain(ALICE_PASSWORD);

    await alice().openArborView();
    await alice().runCommand('Arbor: New Conversation');
    const aliceChat = new ChatPage(alice());
    await aliceChat.waitReady();
    await aliceChat.ask(question, echo(question));

    // Bob's window has never seen this conversation: the team store's feed brings it into his tree.
    await bob().openArborView();
    const row = bob().treeRow(question).first();
    await row.waitFor({ timeout: 30_000 });
    await row.click();
    const bobChat = new ChatPage(bob());
    await bobChat.waitReady();
    await expect.poll(() => bobChat.textOf(bobChat.lastAnswer()), { timeout: 30_000 }).toBe(echo(question));

    // With the chat open in Bob's window, Alice's next exchange shows there live.
    await aliceChat.ask(followUp, echo(followUp));
    await expect.poll(() => bobChat.textOf(bobChat.lastAnswer()), { timeout: 30_000 }).toBe(echo(followUp));
    expect(await bobChat.messagesOf('user').count()).toBe(2);
    await bob().screenshot('teamStore-bob-sees-alice');
  });

  it('copies a team conversation to the local store, and moves a local one to the team store, where Alice sees it', async () => {
    const bobSandbox = windows[1].sandbox;
    // The setting as a person changes it in settings.json; the window is reloaded so it reads it at once.
    const useStore = async (kind: 'local' | 'postgres') => {
      await writeUserSettings(bobSandbox, { 'arbor.storage.kind': kind }, { merge: true });
      await bob().reload();
      await bob().openArborView();
    };
    // Copy to Local on the team conversation, from the tree's menu.
    await bob().openArborView();
    const toast = (text: string | RegExp) => bob().page.locator('.notification-toast', { hasText: text }).first();
    await bob().runFromMenu(bob().treeRow(question).first(), 'Copy to Local', () => toast(/Copying to the local store|copied to the local store/).isVisible());
    await toast('1 conversation copied to the local store.').waitFor({ timeout: 60_000 });

    // Bob's window on the local store: the copy is there, with both exchanges.
    await useStore('local');
    await expect.poll(() => bob().treeRow(question).count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => bob().treeRow(/Only on Bob's machine/).count(), { timeout: 5_000 }).toBe(0);

    // A conversation of his own, local only, then Move to Team Store.
    await bob().runCommand('Arbor: New Conversation');
    const bobChat = new ChatPage(bob());
    await bobChat.waitReady();
    const local = "Only on Bob's machine: birch or beech?";
    await bobChat.ask(local, echo(local));
    await bob().openArborView();
    const localRow = bob().treeRow(/Only on Bob's machine/).first();
    await localRow.waitFor({ timeout: 15_000 });
    // The move closes the conversation's chat before anything else: its tab going is the sign it ran.
    const chatTab = bob().tab(/Only on Bob's machine/);
    await bob().runFromMenu(localRow, 'Move to Team Store', async () => (await chatTab.count()) === 0);
    // Moved: gone from the local store (the notification may have closed by the time it is looked for).
    await expect.poll(() => bob().treeRow(/Only on Bob's machine/).count(), { timeout: 60_000 }).toBe(0);

    // Alice's window, on the team store all along, gets it through the feed.
    await alice().openArborView();
    await expect.poll(() => alice().treeRow(/Only on Bob's machine/).count(), { timeout: 30_000 }).toBe(1);
    await useStore('postgres');
  });

  it('says so in the chat when the server goes away, keeps the typed message, and stores it on Retry once the server is back', async () => {
    await alice().runCommand('Arbor: New Conversation');
    const aliceChat = new ChatPage(alice());
    await aliceChat.waitReady();
    await aliceChat.ask('Before the outage: oak?', echo('Before the outage: oak?'));
    await server().halt();
    try {
      const typed = 'During the outage: which bark is corky?';
      await aliceChat.send(typed);
      // The chat says the team store cannot be reached, with Retry; the text is back in the box, not lost.
      const notice = aliceChat.frame.locator('[data-testid="notice"]', { hasText: /team store/i }).last();
      await notice.waitFor({ timeout: 60_000 });
      await notice.locator('[data-testid="notice-retry"]').waitFor({ timeout: 15_000 });
      await expect.poll(() => aliceChat.input().inputValue(), { timeout: 15_000 }).toBe(typed);
      await alice().screenshot('teamStore-server-gone');
    } finally {
      await server().resume();
    }
    await aliceChat.frame.locator('[data-testid="notice-retry"]').last().click();
    await expect.poll(() => aliceChat.textOf(aliceChat.lastAnswer()), { timeout: 60_000 }).toBe(echo('During the outage: which bark is corky?'));
  });
});
