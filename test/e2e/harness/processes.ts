import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer, connect } from 'node:net';

/** A child process started in its own process group, so stopping it also stops everything it spawned. */
export interface GroupProcess {
  child: ChildProcess;
  /** The last lines it printed, for error messages when it dies early. */
  output(): string;
  /** Sends SIGTERM to the whole group, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `command` in a new process group (detached), keeping its recent output in memory. */
export function spawnGroup(command: string, args: string[], options: SpawnOptions & { echo?: boolean } = {}): GroupProcess {
  const { echo, ...spawnOptions } = options;
  const child = spawn(command, args, { ...spawnOptions, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (echo) process.stderr.write(text);
    lines.push(...text.split('\n').filter(Boolean));
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    output: () => lines.join('\n'),
    async stop(graceMs = 5000) {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const signalGroup = (signal: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          // The group is already gone.
        }
      };
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // Children that outlived the leader still belong to the group.
      signalGroup('SIGKILL');
    },
  };
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until something accepts TCP connections on 127.0.0.1:`port`, or throws after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number, proc?: GroupProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (proc && (proc.child.exitCode !== null || proc.child.signalCode !== null)) {
      throw new Error(`process exited before listening on port ${port}:\n${proc.output()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms${proc ? `:\n${proc.output()}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Runs a command to completion, throwing with its output when it fails. */
export async function run(command: string, args: string[], options: SpawnOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${out.slice(-4000)}`));
    });
  });
}
