/**
 * Runs the real chat webview in headless Debian Chromium: bundles `webview/main.ts` with esbuild
 * into a temp folder, serves it from 127.0.0.1 inside `harness.html` under the host's own CSP
 * (`chatCsp` from src/host), and gives tests and the benchmark a page that records what the
 * webview posts. Shared by test/webview/*.test.ts and bench/webview.ts.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { chatCsp } from '../../src/host/chat/webviewHtml';
import type { FromWebview, ToWebview } from '../../src/shared/protocol';
import { launchChromium } from './chromium';

// tsx runs the benchmark as CommonJS (no import.meta); vitest runs tests as ESM.
const here = typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf',
};

/** A served harness and a browser to open it in. */
export interface WebviewHarness {
  browser: Browser;
  origin: string;
  /** Opens a fresh page on the harness (its own session storage) and waits for the webview's `ready`. */
  openPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Bundles the webview, serves the harness on an ephemeral port and launches Chromium. `webviewDir`
 * serves another copy of the webview folder (a benchmark's baseline: an earlier release's webview).
 */
export async function startHarness(options: { minify?: boolean; webviewDir?: string } = {}): Promise<WebviewHarness> {
  const webviewDir = options.webviewDir ?? path.join(repoRoot, 'webview');
  const dir = await mkdtemp(path.join(tmpdir(), 'arbor-webview-'));
  await mkdir(path.join(dir, 'webview'));
  await mkdir(path.join(dir, 'codicons'));
  await build({
    entryPoints: [path.join(webviewDir, 'main.ts')],
    nodePaths: [path.join(repoRoot, 'node_modules')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    minify: options.minify ?? false,
    outfile: path.join(dir, 'webview/main.js'),
    logLevel: 'silent',
  });
  await copyFile(path.join(webviewDir, 'styles.css'), path.join(dir, 'webview/main.css'));
  const codicons = path.join(repoRoot, 'node_modules/@vscode/codicons/dist');
  await copyFile(path.join(codicons, 'codicon.css'), path.join(dir, 'codicons/codicon.css'));
  await copyFile(path.join(codicons, 'codicon.ttf'), path.join(dir, 'codicons/codicon.ttf'));
  await copyFile(path.join(here, 'theme.css'), path.join(dir, 'theme.css'));
  const template = await readFile(path.join(here, 'harness.html'), 'utf8');

  let origin = '';
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', origin);
      if (url.pathname === '/' || url.pathname === '/index.html') {
        const nonce = randomBytes(16).toString('base64').replace(/=+$/, '');
        const html = template
          .replaceAll('{{CSP}}', chatCsp(origin, nonce))
          .replaceAll('{{NONCE}}', nonce)
          .replaceAll('{{ORIGIN}}', origin);
        response.writeHead(200, { 'content-type': CONTENT_TYPES['.html'] });
        response.end(html);
        return;
      }
      const file = path.join(dir, path.normalize(url.pathname).replace(/^([/\\])+/, ''));
      if (!file.startsWith(dir)) {
        response.writeHead(403).end();
        return;
      }
      try {
        const body = await readFile(file);
        response.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream' });
        response.end(body);
      } catch {
        response.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('The harness server did not get a TCP port');
  }
  origin = `http://127.0.0.1:${address.port}`;

  const browser = await launchChromium();
  return {
    browser,
    origin,
    async openPage() {
      const context = await browser.newContext({ viewport: { width: 900, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await waitForPosted(page, (message) => message.type === 'ready');
      return page;
    },
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Posts a host message to the webview, as VS Code's `webview.postMessage` does. */
export async function postToWebview(page: Page, message: ToWebview): Promise<void> {
  await page.evaluate((data) => (globalThis as any).postMessage(data, '*'), message);
}

/** Everything the webview posted so far. */
export async function posted(page: Page): Promise<FromWebview[]> {
  return page.evaluate(() => (globalThis as any).__posted as FromWebview[]);
}

/** Waits until the webview posted a message matching `match`, and returns it. */
export async function waitForPosted(page: Page, match: (message: FromWebview) => boolean, timeoutMs = 5000): Promise<FromWebview> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await posted(page)).find(match);
    if (found) {
      return found;
    }
    if (Date.now() > deadline) {
      throw new Error(`The webview did not post the expected message; it posted: ${JSON.stringify(await posted(page))}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Forgets the recorded messages, so a test can look only at what comes next. */
export async function clearPosted(page: Page): Promise<void> {
  await page.evaluate(() => {
    (globalThis as any).__posted.length = 0;
  });
}

/** The Content-Security-Policy violations the page reported. */
export async function cspViolations(page: Page): Promise<unknown[]> {
  return page.evaluate(() => (globalThis as any).__cspViolations as unknown[]);
}
