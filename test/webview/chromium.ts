/**
 * The one Chromium both browser suites use (the webview tests here and the end-to-end suite in
 * test/e2e): Debian's package, launched headless with the flags that keep it quiet and offline.
 */
import { access } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian puts Chromium (scripts/installCodeServer.sh installs it); ARBOR_CHROMIUM or CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.ARBOR_CHROMIUM ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Launches headless Chromium, or says how to install it when it is missing. */
export async function launchChromium(): Promise<Browser> {
  try {
    await access(CHROMIUM_PATH);
  } catch {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: run scripts/installCodeServer.sh (or apt-get install chromium) or set ARBOR_CHROMIUM to a Chromium binary.`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
