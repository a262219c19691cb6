/**
 * The fake model server of a tour, run as a child process of the extension host: the launcher that
 * `npm start` names (scripts/tourServer.mjs) is started once, on the person's click, and stopped with
 * the extension. Pure Node (no `vscode`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { tourServerAddress } from './firstRun';

/** How long the launcher may take to print its address (it compiles the server with tsx first). */
const START_TIMEOUT_MS = 60_000;

/** Starts the launcher at most once and hands out its address; `dispose` stops it. */
export class TourServer {
  private child: ChildProcess | undefined;
  private address: Promise<string> | undefined;

  constructor(private readonly script: string) {}

  /** The server's base URL (`http://127.0.0.1:PORT`), starting it on the first call. */
  start(): Promise<string> {
    if (!this.address) {
      this.address = this.launch();
      // A failed start may be tried again.
      this.address.catch(() => (this.address = undefined));
    }
    return this.address;
  }

  private launch(): Promise<string> {
    // The extension host's own Node (code-server's); ELECTRON_RUN_AS_NODE makes an Electron one act as Node.
    const child = spawn(process.execPath, [this.script], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    this.child = child;
    return new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill();
        reject(new Error(`The fake model server did not start: ${why}${err.trim() ? ` (${err.trim().split('\n').slice(-3).join(' ')})` : ''}`));
      };
      const timer = setTimeout(() => fail(`no address after ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
      child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-2000)));
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        for (const line of out.split('\n')) {
          const address = tourServerAddress(line);
          if (address) {
            clearTimeout(timer);
            resolve(address);
            return;
          }
        }
      });
      child.once('error', (e) => fail(e.message));
      child.once('exit', (code, signal) => {
        if (this.child === child) {
          this.child = undefined;
          this.address = undefined;
        }
        fail(`it exited (${signal ?? code})`);
      });
    });
  }

  /** Stops the server (closing its stdin is enough; the kill covers a launcher that hangs). */
  dispose(): void {
    const child = this.child;
    this.child = undefined;
    this.address = undefined;
    if (!child) return;
    child.stdin?.end();
    child.kill();
  }
}
