import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Chat tabs across window reloads, and where a new conversation shows: one tab per conversation
 * even for a tab VS Code restored but has not drawn yet (its webview is made when it is first
 * shown), a rename that reaches such a tab, New Conversation putting the caret in the message box,
 * and a conversation listed in the tree only once it has a message.
 */
describe('chat tabs, reloads and new conversations', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  // Unique to this file: other files share this VS Code and its store.
  const first = 'Tabs first: why do leaves fall?';
  const second = 'Tabs second: how do roots grow?';
  const renamed = 'Tabs renamed: leaves and autumn';
  const firstRenamed = 'Tabs first, renamed';

  /**
   * Reloads with "Developer: Reload Window", which saves the open tabs first (a page reload right
   * after a tab closed can restore the tab, as VS Code had not yet saved that it closed).
   */
  async function reloadWindow(): Promise<void> {
    const { page } = session.workbench;
    const navigated = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: 60_000 });
    // The palette's row for it is not always still long enough to be clicked: pick it with Enter.
    const input = await session.workbench.typeInPalette('>Developer: Reload Window');
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'Developer: Reload Window' }).first().waitFor({ timeout: 15_000 });
    await input.press('Enter');
    await navigated;
    await session.workbench.waitReady();
    // The sidebar comes back showing Arbor; a click on its icon before then would close it instead.
    await session.workbench.sidebarTitle().filter({ hasText: /arbor/i }).waitFor({ timeout: 15_000 }).catch(() => undefined);
  }

  /** The Conversations tree's top-level rows (conversations). */
  const conversationRows = () => session.workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="1"]');

  /** Renames a conversation from its tree row's context menu. */
  async function rename(row: string | RegExp, title: string): Promise<void> {
    const { workbench } = session;
    await workbench.openArborView();
    const item = workbench.page.locator('.context-view .monaco-menu .action-item', { hasText: /^Rename/ }).first();
    const box = workbench.page.locator('.quick-input-widget .quick-input-box input');
    // A right-click on a row the tree is redrawing opens no menu, or the menu of the row that moved in
    // under the pointer (a rename reorders the list), and a menu can close without running what was
    // clicked; a chat page that loads meanwhile can take the focus, which closes the title box. Try
    // again until the box holds this row's title, takes the new one, and the tree shows it.
    const holdsRow = (value: string) => (typeof row === 'string' ? value === row : row.test(value));
    for (let attempt = 0; ; attempt++) {
      await workbench.treeRow(row).first().click({ button: 'right' });
      if (await item.waitFor({ timeout: 5_000 }).then(() => true, () => false)) {
        // The menu can close under the pointer before its item is picked: that is one more failed attempt.
        await workbench.pickMenuItem(/^Rename/).catch(() => undefined);
        if (await box.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false)) {
          if (holdsRow(await box.inputValue())) {
            // The box can close between the check and the typing (the focus taken): then this attempt fails.
            await box.fill(title, { timeout: 5_000 }).catch(() => undefined);
            if ((await box.inputValue().catch(() => '')) === title) {
              await box.press('Enter');
              await box.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
              if (await workbench.treeRow(title).first().waitFor({ timeout: 10_000 }).then(() => true, () => false)) return;
            }
          }
        }
      }
      if (attempt >= 3) throw new Error(`could not rename the conversation of the tree row ${String(row)}`);
      await workbench.page.keyboard.press('Escape');
    }
  }

  /** Closes the active editor tab whose title contains `title` with its close button. */
  async function closeTab(title: string): Promise<void> {
    await session.workbench.tab(title).first().locator('.tab-actions .action-label').click();
    await expect.poll(() => session.workbench.tab(title).count(), { timeout: 15_000 }).toBe(0);
  }

  it('focuses the message box of a new conversation started from the palette', async () => {
    const { workbench } = session;
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    // No click: the keys go where the focus is.
    await workbench.page.keyboard.type('typed at once');
    await expect.poll(() => chat().input().inputValue(), { timeout: 15_000 }).toBe('typed at once');
    await closeTab('New conversation');
  });

  it('focuses the message box of a new conversation started from the view\'s title button', async () => {
    const { workbench } = session;
    await workbench.openArborView();
    // With two views in the Arbor sidebar, a view's title actions show while its header is hovered.
    const header = workbench.page.locator('.part.sidebar .pane-header', { hasText: /Conversations/i }).first();
    await header.hover();
    await header.locator('.action-label[aria-label="New Conversation"]').first().click();
    await expect.poll(() => workbench.tab('New conversation').count(), { timeout: 30_000 }).toBe(1);
    await chat().waitReady();
    await workbench.page.keyboard.type('typed at once');
    await expect.poll(() => chat().input().inputValue(), { timeout: 15_000 }).toBe('typed at once');
    await closeTab('New conversation');
  });

  it('starts two conversations, each in its own tab', async () => {
    const { workbench } = session;
    await workbench.openArborView();
    for (const question of [first, second]) {
      await workbench.runCommand('Arbor: New Conversation');
      await chat().send(question);
      await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toContain(question);
      await chat().waitIdle();
      await expect.poll(() => workbench.tab(question).count(), { timeout: 15_000 }).toBe(1);
      // With its first message it is in the tree.
      await expect.poll(() => workbench.treeRow(question).count(), { timeout: 15_000 }).toBe(1);
    }
  });

  it('lists a new conversation in the tree only once it has a message, and closing it empty leaves nothing', async () => {
    const { workbench } = session;
    await workbench.openArborView();
    await expect.poll(() => workbench.treeRow(second).count(), { timeout: 15_000 }).toBe(1);
    const listed = await conversationRows().count();
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(() => workbench.tab('New conversation').count(), { timeout: 15_000 }).toBe(1);
    // The tree has had time to redraw when a change after it shows: the title of a renamed conversation.
    await rename(second, `${second} (kept)`);
    await expect.poll(() => workbench.treeRow(`${second} (kept)`).count(), { timeout: 15_000 }).toBe(1);
    expect(await conversationRows().count()).toBe(listed);
    expect(await workbench.treeRow(/^New conversation/).count()).toBe(0);

    // Closing the empty chat leaves nothing, also after a reload.
    await closeTab('New conversation');
    await reloadWindow();
    await workbench.openArborView();
    await expect.poll(() => workbench.treeRow(first).count(), { timeout: 30_000 }).toBe(1);
    expect(await conversationRows().count()).toBe(listed);
    expect(await workbench.tab('New conversation').count()).toBe(0);
    // Export Conversation lists the same conversations: none of them empty.
    const rows = workbench.page.locator('.quick-input-widget .monaco-list-row').filter({ visible: true });
    // Right after a reload the restored chat can take the focus, which closes a picker: open it again then.
    for (let attempt = 0; ; attempt++) {
      await workbench.runCommand('Arbor: Export Conversation');
      if (await rows.filter({ hasText: first }).first().waitFor({ timeout: 5_000 }).then(() => true, () => false)) break;
      if (attempt >= 3) throw new Error('Export Conversation did not list the conversations');
    }
    expect(await rows.filter({ hasText: 'New conversation' }).count()).toBe(0);
    await workbench.page.keyboard.press('Escape');
    await rows.first().waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('reveals a restored tab not shown since the reload instead of opening a second one', async () => {
    const { workbench } = session;
    // Reload with the second chat in front: the first chat's tab is restored but not drawn.
    await workbench.tab(/Tabs second/).first().click();
    await reloadWindow();
    await expect.poll(() => workbench.tab(first).count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => workbench.tab(/Tabs second/).first().getAttribute('aria-selected'), { timeout: 30_000 }).toBe('true');
    expect(await workbench.tab(first).first().getAttribute('aria-selected')).toBe('false');
    await workbench.openArborView();
    // A click on a row the tree is redrawing right then runs nothing ("command not found"): click again then.
    await expect
      .poll(
        async () => {
          await workbench.treeRow(first).first().click();
          await workbench.tab(first).first().locator('xpath=self::*[@aria-selected="true"]').waitFor({ timeout: 5_000 }).catch(() => undefined);
          return workbench.tab(first).first().getAttribute('aria-selected');
        },
        { timeout: 60_000 },
      )
      .toBe('true');
    await expect.poll(() => chat().textOf(chat().messagesOf('user').first()), { timeout: 30_000 }).toBe(first);
    expect(await workbench.tab(first).count()).toBe(1);
    expect(await workbench.tab(/Tabs second/).count()).toBe(1);
    await workbench.screenshot('tabs-restored-tab-revealed');
  });

  it('renames a restored tab not shown since the reload at once, keeping the tab in front', async () => {
    const { workbench } = session;
    await workbench.tab(first).first().click();
    await reloadWindow();
    // The first chat is in front now; the second is restored behind it.
    await expect.poll(() => workbench.tab(/Tabs second/).count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => workbench.tab(first).first().getAttribute('aria-selected'), { timeout: 30_000 }).toBe('true');
    await workbench.openArborView();
    await rename(/Tabs second/, renamed);
    await expect.poll(() => workbench.tab(renamed).count(), { timeout: 30_000 }).toBe(1);
    expect(await workbench.tab(/Tabs second/).count()).toBe(0);
    // The tab that was in front is in front again.
    await expect.poll(() => workbench.tab(first).first().getAttribute('aria-selected'), { timeout: 15_000 }).toBe('true');
    expect(await workbench.tab(renamed).first().getAttribute('aria-selected')).toBe('false');
  });

  it('renames a chat in a background tab at once', async () => {
    const { workbench } = session;
    await workbench.openArborView();
    await rename(first, firstRenamed);
    await expect.poll(() => workbench.tab(firstRenamed).count(), { timeout: 30_000 }).toBe(1);
    // Bring the other chat forward, rename the first again while it is behind.
    await workbench.tab(renamed).first().click();
    await expect.poll(() => workbench.tab(renamed).first().getAttribute('aria-selected'), { timeout: 15_000 }).toBe('true');
    await rename(firstRenamed, first);
    await expect.poll(() => workbench.tab(firstRenamed).count(), { timeout: 30_000 }).toBe(0);
    expect(await workbench.tab(first).count()).toBe(1);
  });
});
