/**
 * Test and benchmark helpers: configurations of the reference MCP servers installed as dev dependencies
 * (server-everything, server-filesystem), and server-everything started in its HTTP modes on a free port.
 * Not exported from the core's index.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { Logger } from '../files';
import type { McpServerConfig } from './mcpConfig';
import type { SecretStore } from './mcpVariables';
import { freePort } from '../../../test/fixtures/providerTestTools';

const ROOT = path.resolve(__dirname, '../../..');
/** The entry script of server-everything (`node <it> stdio|sse|streamableHttp`). */
export const EVERYTHING_BIN = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The entry script of server-filesystem (`node <it> <allowed folder>...`). */
export const FILESYSTEM_BIN = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** A stdio server slow to answer `initialize` (`node <it> never|<ms>|signal [label]`), see test/fixtures/mcpLateServer.mjs. */
export const LATE_SERVER_BIN = path.join(ROOT, 'test/fixtures/mcpLateServer.mjs');

/** A user-level stdio server configuration. */
export function stdioServer(name: string, command: string, args: string[], env: Record<string, string | null> = {}): McpServerConfig {
  return { name, source: 'user', origin: 'test', type: 'stdio', command, args, env };
}

/** server-everything over stdio. */
export const everythingStdio = (name = 'everything'): McpServerConfig => stdioServer(name, process.execPath, [EVERYTHING_BIN, 'stdio']);


/**
 * A server that answers `initialize` `delayMs` after it arrives (`'never'`: a server that never answers;
 * `'signal'`: once `releaseLateServer(name)`), then serves `late_echo`. Its process is labelled `name`.
 */
export const lateStdio = (name: string, delayMs: number | 'never' | 'signal'): McpServerConfig => stdioServer(name, process.execPath, [LATE_SERVER_BIN, String(delayMs), name]);

/** Lets the `'signal'` late server labelled `name` answer `initialize` (once it said on stderr that it holds the answer). */
export function releaseLateServer(name: string): void {
  const pids = childrenRunning(`mcpLateServer.mjs signal ${name}$`);
  if (pids.length !== 1) throw new Error(`Expected one late server "${name}" running, found ${pids.length}.`);
  process.kill(Number(pids[0]), 'SIGUSR2');
}

/** server-everything in `streamableHttp` (endpoint /mcp) or `sse` (endpoint /sse) mode, listening. */
export interface HttpEverything {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts server-everything in an HTTP mode on a free port and waits until it says it listens. */
export async function startHttpEverything(mode: 'streamableHttp' | 'sse'): Promise<HttpEverything> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${code} before listening:\n${output}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill();
    });
  return { url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`, process: child, stop };
}

/** A Logger that keeps every line, for tests that check what was logged. */
export class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  debug(message: string) {
    this.lines.push(`debug ${message}`);
  }
  info(message: string) {
    this.lines.push(`info ${message}`);
  }
  warn(message: string) {
    this.lines.push(`warn ${message}`);
  }
  error(message: string) {
    this.lines.push(`error ${message}`);
  }
}

/** The pids of server-everything processes this process started that still run. */
export function everythingChildren(): string[] {
  return childrenRunning('server-everything/dist/index.js');
}

/** The pids of late-server fixture processes this process started that still run. */
export function lateServerChildren(): string[] {
  return childrenRunning('mcpLateServer.mjs');
}

function childrenRunning(pattern: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '-P', String(process.pid), pattern], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits with 1 when nothing matches
  }
}

/** Secret storage in memory, as the host's SecretStorage behaves. */
export class MemorySecrets implements SecretStore {
  readonly values = new Map<string, string>();
  async get(key: string) {
    return this.values.get(key);
  }
  async store(key: string, value: string) {
    this.values.set(key, value);
  }
  async delete(key: string) {
    this.values.delete(key);
  }
}
