/**
 * `read_file`: the text of one file, whole or by a 1-based line range, under a header that gives the
 * path, the range and the file's line count, so the model can ask for the next range itself. Large
 * output keeps its first and last lines and names the range left out.
 */
import { defineTool, InvalidArgumentError, looksBinary, splitLines } from '../../core/index';
import * as path from 'node:path';
import type { CallVerdict, OfferedTool } from './offeredTool';
import { isHomeDotPath } from './toolApprovals';
import { MAX_READ_BYTES, outsidePath, WorkspaceAccess, type WorkspaceToolEnv } from './workspaceAccess';

/** Most lines one call returns; a longer range keeps its head and tail. */
export const READ_MAX_LINES = 2000;
/** Most characters one call returns (about 100 KB). */
export const READ_MAX_CHARS = 100_000;
/** A line longer than this is cut when the output has to be cut anyway (minified code). */
const MAX_LINE_CHARS = 2000;

interface ReadFileInput {
  path: string;
  startLine?: number;
  endLine?: number;
}

const decoder = new TextDecoder('utf-8');

function cutLine(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)} [… ${line.length - MAX_LINE_CHARS} more characters on this line]`;
}

/**
 * Lines numbered from `first`, joined; when they pass `maxLines` or `maxChars`, the first and last
 * lines that fit half the budget each are kept (long lines cut) and a marker names the lines left out
 * and how to read them.
 */
export function cutLines(lines: readonly string[], first: number, maxLines = READ_MAX_LINES, maxChars = READ_MAX_CHARS): string {
  const whole = lines.join('\n');
  if (lines.length <= maxLines && whole.length <= maxChars) return whole;
  const short = lines.map(cutLine);
  const half = { lines: Math.floor(maxLines / 2), chars: Math.floor(maxChars / 2) };
  let head = 0;
  for (let chars = 0; head < short.length && head < half.lines && chars + short[head].length + 1 <= half.chars; head++) chars += short[head].length + 1;
  let tail = short.length;
  for (let chars = 0; tail > head && short.length - tail < half.lines && chars + short[tail - 1].length + 1 <= half.chars; tail--) chars += short[tail - 1].length + 1;
  const parts = short.slice(0, head);
  if (tail > head) {
    const from = first + head;
    const to = first + tail - 1;
    const count = to - from + 1;
    const how = count <= maxLines ? `read them with startLine ${from} and endLine ${to}` : `read them in ranges of at most ${maxLines} lines (startLine ${from}, endLine ${from + maxLines - 1}, and so on)`;
    parts.push(`[… lines ${from}-${to} (${count} lines) left out to keep this short; ${how} …]`);
  }
  parts.push(...short.slice(tail));
  return parts.join('\n');
}

/** The `read_file` tool over `env`. */
export function readFileTool(env: WorkspaceToolEnv): OfferedTool {
  const tool = defineTool<ReadFileInput>({
    name: 'read_file',
    description:
      'Read a text file of the workspace. `path` is relative to the workspace folder (e.g. `src/app.ts`); an absolute path outside the workspace is allowed only if the user approves. ' +
      'Give `startLine` and `endLine` (1-based, inclusive) to read part of a large file. The result starts with a line naming the path, the lines returned and the file\'s total line count. ' +
      `At most ${READ_MAX_LINES} lines or about ${READ_MAX_CHARS / 1000} KB are returned per call; the rest is marked with the range to ask for. ` +
      'Files ignored by .gitignore or the retrieval excludes, secret files (.env, keys, credentials) and binary files are refused.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the workspace folder (or absolute).' },
        startLine: { type: 'integer', minimum: 1, description: 'First line to read (1-based). Default: 1.' },
        endLine: { type: 'integer', minimum: 1, description: 'Last line to read (inclusive). Default: the end of the file.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    readOnly: true,
    async run(input, ctx) {
      const access = new WorkspaceAccess(env);
      const file = await access.resolveFile(input.path);
      const max = env.maxReadBytes ?? MAX_READ_BYTES;
      if (file.size > max) {
        throw new InvalidArgumentError(`"${file.shown}" is ${file.size} bytes, more than read_file reads (${max}); find the lines you need with grep, which reports line numbers.`);
      }
      ctx.signal.throwIfAborted();
      const bytes = await env.files.readFile(file.readPath);
      if (looksBinary(bytes)) throw new InvalidArgumentError(`"${file.shown}" is a binary file, so it cannot be read as text.`);
      const text = decoder.decode(bytes);
      const lines = text === '' ? [] : splitLines(text);
      const total = lines.length;
      if (total === 0) return `${file.shown} is empty (0 lines).`;
      const start = input.startLine ?? 1;
      if (start > total) throw new InvalidArgumentError(`"${file.shown}" has ${total} lines, so it has no line ${start}.`);
      if (input.endLine !== undefined && input.endLine < start) {
        throw new InvalidArgumentError(`endLine (${input.endLine}) is before startLine (${start}); give a range with startLine <= endLine.`);
      }
      const end = Math.min(input.endLine ?? total, total);
      const range = start === 1 && end === total ? `all ${total} lines` : `lines ${start}-${end} of ${total}`;
      return `${file.shown} (${range}${file.outside ? ', outside the workspace' : ''}):\n${cutLines(lines.slice(start - 1, end), start)}`;
    },
  });
  return {
    tool,
    source: 'builtin',
    displayName: tool.name,
    outsideWorkspace: (input) => outsidePath(env.folders(), input.path),
    checkCall: (input) => outsideLinkVerdict(env, input.path),
  };
}

/**
 * An outside path that is itself a link (out of its folder, or into the home folder's dotfiles) is asked
 * every time, naming where it leads: an Allow covers the folder of the path the user saw, so a link there
 * must not carry a grant to another folder. `undefined` (the usual rules) for anything else.
 */
async function outsideLinkVerdict(env: WorkspaceToolEnv, p: unknown): Promise<CallVerdict | undefined> {
  const outside = outsidePath(env.folders(), p);
  const realPath = env.files.realPath?.bind(env.files);
  if (outside === undefined || !realPath) return undefined;
  const [real, realFolder] = await Promise.all([realPath(outside).catch(() => undefined), realPath(path.dirname(outside)).catch(() => undefined)]);
  if (real === undefined || realFolder === undefined) return undefined;
  // The file itself is no link (its folder may sit behind one, as /tmp does on macOS).
  if (real === path.join(realFolder, path.basename(outside)) && !isHomeDotPath(real)) return undefined;
  return { kind: 'ask', reason: `reads ${outside}, a link to ${real}, outside the folder an Allow would cover; asked every time`, once: true };
}
