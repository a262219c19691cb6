import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';
import { launchChromium } from '../../webview/chromium';
import { REPO_ROOT } from './codeServer';

/** The installed extension's id, which VS Code puts in its webviews' iframe URLs. */
export const EXTENSION_ID = 'arbor-dev.arbor';

/** Where failure screenshots go. */
export const RESULTS_DIR = path.join(REPO_ROOT, 'test-results');

/** Launches the headless Chromium the webview tests use too. */
export function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

/** A VS Code window in a browser page, with the moves the tests make in it. */
export class Workbench {
  constructor(
    readonly page: Page,
    readonly url: string,
  ) {}

  /** Opens the workbench URL in a new page and waits until VS Code has drawn itself. */
  static async open(browser: Browser, url: string): Promise<Workbench> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const workbench = new Workbench(page, url);
    try {
      await page.goto(url);
      await workbench.waitReady();
    } catch (error) {
      const file = await workbench.screenshot('workbench-did-not-open').catch(() => 'no screenshot');
      throw new Error(`VS Code did not open at ${url} (screenshot: ${file}): ${error instanceof Error ? error.message : String(error)}`);
    }
    return workbench;
  }

  /** Waits for the workbench and its activity bar (where extension views appear once VS Code has read them). */
  async waitReady(): Promise<void> {
    await this.page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await this.page.locator('.activitybar .action-item').first().waitFor({ timeout: 60_000 });
    // The icon appears once VS Code has read the installed extensions: their commands are in the palette from then on.
    await this.arborIcon().waitFor({ timeout: 60_000 });
  }

  /** Reloads the window (as "Developer: Reload Window" does) and waits for it again. */
  async reload(): Promise<void> {
    await this.page.reload();
    await this.waitReady();
  }

  /** The Arbor icon in the activity bar. */
  arborIcon(): Locator {
    return this.page.locator('.activitybar .action-item a[aria-label^="Arbor"], .activitybar [aria-label^="Arbor"]').first();
  }

  /** Shows the Arbor view container in the sidebar (clicking its icon only while it is not showing). */
  async openArborView(): Promise<void> {
    await this.arborIcon().waitFor({ timeout: 30_000 });
    // With one view in the container VS Code hides its header and titles the sidebar "Arbor: Conversations".
    const title = this.page.locator('.part.sidebar .composite.title', { hasText: /arbor/i }).first();
    // The sidebar may show another view, or be closed with Arbor's title hidden in it; and a click while
    // a freshly started workbench is still busy can be lost: click until the view shows.
    for (let attempt = 0; attempt < 6 && !(await title.isVisible()); attempt++) {
      await this.arborIcon().click().catch(() => undefined);
      await title.waitFor({ timeout: 10_000 }).catch(() => undefined);
    }
    await title.waitFor({ timeout: 10_000 });
    await this.page.locator('.part.sidebar .pane-body').first().waitFor({ timeout: 30_000 });
  }

  /** The sidebar's title, which names the view container it shows. */
  sidebarTitle(): Locator {
    return this.page.locator('.part.sidebar .composite.title').first();
  }

  /** The rows of the Conversations tree. */
  treeRows(): Locator {
    return this.page.locator('.part.sidebar .pane-body [role="treeitem"]');
  }

  /** One row of the Conversations tree whose label contains `text`. */
  treeRow(text: string | RegExp): Locator {
    return this.treeRows().filter({ hasText: text });
  }

  /**
   * The first row of the Conversations tree whose label starts with `text`, scrolled into view: the tree
   * renders only the rows in view, so a conversation below them (an old or imported one, after a long
   * suite) is found by VS Code's type navigation, which moves the focus, and the view, to it.
   */
  async revealTreeRow(text: string): Promise<Locator> {
    await this.runCommand('Focus on Conversations View');
    await this.page.keyboard.type(text, { delay: 10 });
    await this.page.keyboard.press('Escape');
    return this.treeRow(text).first();
  }

  /** How many rows of the Conversations tree have `text` in their label, after scrolling to the first. */
  async countTreeRows(text: string): Promise<number> {
    await this.revealTreeRow(text);
    return this.treeRow(text).count();
  }

  /** Expands a tree row (a click on its label runs its command instead). */
  async expand(row: Locator): Promise<void> {
    if ((await row.getAttribute('aria-expanded')) === 'false') await row.locator('.monaco-tl-twistie').click();
    await this.page.waitForFunction(
      (el) => el?.getAttribute('aria-expanded') !== 'false',
      await row.elementHandle(),
      { timeout: 10_000 },
    );
  }

  /** Runs a command from the palette (F1) by its title, e.g. "Arbor: New Conversation". */
  async runCommand(title: string): Promise<void> {
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
    // A chat restored after a reload can take the focus between the palette's list showing and the
    // click, closing it: the click then fails (it never ran the command) and the palette opens again.
    for (let attempt = 0; ; attempt++) {
      await this.typeInPalette(`>${title}`);
      await row.waitFor({ timeout: 15_000 });
      const clicked = await row.click({ timeout: 5_000 }).then(() => true, (error: unknown) => (attempt >= 2 ? Promise.reject(error) : false));
      if (clicked) return;
    }
  }

  /**
   * Opens the command palette (F1) and types `text` into it; returns its input box. The palette
   * sometimes misses F1 while the workbench is busy, and a chat taking the focus right after a reload
   * or a closed tab can close it again before the text is in: both are tried again.
   */
  async typeInPalette(text: string): Promise<Locator> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    for (let attempt = 0; ; attempt++) {
      // Escape only closes an open picker: pressed in an editor it would drop the selection a command needs.
      if (await input.isVisible()) await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('F1');
      const typed = await input
        .waitFor({ state: 'visible', timeout: 5_000 })
        .then(() => input.fill(text, { timeout: 5_000 }))
        .then(() => true, () => false);
      if (typed && (await input.inputValue().catch(() => '')) === text && (await input.isVisible())) return input;
      if (attempt >= 5) throw new Error(`the command palette did not take "${text}" after six tries`);
    }
  }

  /**
   * Hovers `target` until a hover holding `text` shows, and returns it. A tree that redraws its rows
   * under the pointer (a store change, a "just now" that ages) drops a pending hover: the pointer
   * leaves and comes back until one shows.
   */
  async hoverFor(target: Locator, text: string | RegExp): Promise<Locator> {
    const hover = this.page.locator('.monaco-hover, .workbench-hover', { hasText: text }).first();
    for (let attempt = 0; ; attempt++) {
      await this.page.mouse.move(0, 0);
      await target.hover();
      if (await hover.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) return hover;
      if (attempt >= 4) throw new Error(`no hover with "${String(text)}" showed after five tries`);
    }
  }

  /** Picks an entry of an open context menu by its label. */
  async pickMenuItem(label: string | RegExp): Promise<void> {
    const item = this.page.locator('.context-view .monaco-menu .action-item', { hasText: label }).first();
    await item.waitFor({ timeout: 10_000 });
    // A menu ignores clicks in its first moments (so the right-click that opened it picks nothing): retry until it closes.
    for (let attempt = 0; attempt < 5 && (await item.isVisible()); attempt++) {
      // A menu that closes meanwhile (a tree redraw) detaches the item: give up on it quickly, the caller checks what happened.
      await item.hover({ timeout: 2_000 }).catch(() => undefined);
      await item.click({ timeout: 2_000 }).catch(() => undefined);
      await item.waitFor({ state: 'hidden', timeout: 1_000 }).catch(() => undefined);
    }
    if (await item.isVisible()) throw new Error(`the menu item "${String(label)}" stayed open after five clicks`);
  }

  /**
   * Right-clicks `row`, picks `label` and waits up to `wait` ms for `ran` to say the command ran. A menu
   * that a redraw closed before the pick landed ran nothing: it is opened and picked again (three tries).
   * `ran` must look for the command's first visible effect (a progress toast, a closed tab), so a slow
   * command is not started twice.
   */
  async runFromMenu(row: Locator, label: string | RegExp, ran: () => Promise<boolean>, wait = 20_000): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      await row.click({ button: 'right' });
      await this.pickMenuItem(label);
      const deadline = Date.now() + wait;
      while (Date.now() < deadline) {
        if (await ran()) return;
        await this.page.waitForTimeout(250);
      }
      if (attempt >= 2) throw new Error(`"${String(label)}" from the menu showed no effect after three tries`);
      console.log(`[e2e] "${String(label)}" from the menu showed no effect in ${wait} ms: opening the menu again`);
    }
  }

  /** Every Arbor webview iframe (outer frame) in the page. */
  arborWebviews(): Locator {
    return this.page.locator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`);
  }

  /** The inner document of the visible Arbor chat webview (the active chat tab). */
  chat(): FrameLocator {
    return this.arborWebviews().filter({ visible: true }).first().contentFrame().locator('#active-frame').contentFrame();
  }

  /** Editor tabs whose title contains `text`. */
  tab(text: string | RegExp): Locator {
    return this.page.locator('.part.editor .tabs-container .tab', { hasText: text });
  }

  /** Saves a full-page PNG under test-results/ and returns its path. */
  async screenshot(name: string): Promise<string> {
    await mkdir(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, `${name.replace(/[^a-z0-9-_]+/gi, '-').slice(0, 100)}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }
}
