/**
 * Commands that run another command: `env`, `command`, `exec`, `nohup`, `time`, `nice`, `timeout`,
 * `xargs`, `sudo`, `find -exec`, `sh -c '…'` and its kin, `eval`, leading `NAME=value` assignments and
 * the shell's own words (`{`, `!`, `if`, `then`, `do`…). `commandPolicy` looks through them, so that the
 * deny list sees the command they run and the allow list does not let them run one it does not allow.
 * Pure.
 */
import { isAssignment, type ShellWord } from './shellParse';

/** What a wrapper runs: the words `[at, end)` as a command, or shell text (`sh -c`'s script) made of them. */
export type Wrapped = { kind: 'command'; at: number; end: number } | { kind: 'script'; at: number; end: number; script: string };

interface WrapperSpec {
  /** Options that take the next word as their value (a long one may also be written `--name=value`). */
  valued?: readonly string[];
  /** Words after the options and before the command (`timeout`'s duration). */
  operands?: number;
  /** `NAME=value` words may come before the command (`env`). */
  assignments?: boolean;
  /** Options whose value is shell text it runs (`env -S '…'`, `su -c '…'`). */
  scriptOptions?: readonly string[];
  /** Its script option may come after its other arguments (`su - root -c '…'`). */
  scriptAnywhere?: boolean;
  /** It runs the words after its options through `sh -c` (`watch`). */
  joinsScript?: boolean;
  /** Options with which it runs nothing (`command -v` only looks the name up). */
  runsNothing?: readonly string[];
}

const WRAPPERS: Record<string, WrapperSpec> = {
  command: { runsNothing: ['-v', '-V'] },
  builtin: {},
  pkexec: { valued: ['--user'] },
  chronic: {},
  unbuffer: {},
  busybox: {},
  ionice: { valued: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'] },
  su: { valued: ['-s', '-g', '-G', '--shell', '--group', '--supp-group', '-w', '--whitelist-environment'], scriptOptions: ['-c', '--command'], scriptAnywhere: true },
  runuser: { valued: ['-u', '-s', '-g', '-G', '--user', '--shell', '--group', '--supp-group'], scriptOptions: ['-c', '--command'], scriptAnywhere: true },
  watch: { valued: ['-n', '-d', '--interval', '--differences', '-q', '--equexit'], joinsScript: true },
  exec: { valued: ['-a'] },
  nohup: {},
  setsid: {},
  time: { valued: ['-f', '-o', '--format', '--output'] },
  nice: { valued: ['-n', '--adjustment'] },
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  xargs: {
    valued: ['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter', '--max-args', '--max-lines', '--max-procs', '--max-chars', '--replace', '--eof', '--process-slot-var'],
  },
  sudo: {
    valued: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R', '--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--role', '--type', '--other-user', '--command-timeout', '--chroot'],
    assignments: true,
  },
  doas: { valued: ['-u', '-C'] },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  env: { valued: ['-u', '-C', '--unset', '--chdir'], assignments: true, scriptOptions: ['-S', '--split-string'] },
};

/** The shell's reserved words that a command may follow. */
const RESERVED = new Set(['{', '!', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', 'coproc']);
/** Shells whose `-c` runs the next word as shell text. */
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
/** Shell options that take the next word as their value. */
const SHELL_VALUED = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** The program a word names: `/usr/bin/env` is `env`. */
export function programName(w: ShellWord): string {
  return w.text.slice(w.text.lastIndexOf('/') + 1);
}

const isOption = (w: ShellWord) => w.text.length > 1 && w.text.startsWith('-');

function scriptAt(words: readonly ShellWord[], i: number, option: string): Wrapped[] {
  const text = words[i].text;
  if (text === option) return words[i + 1] ? [{ kind: 'script', at: i + 1, end: i + 2, script: words[i + 1].text }] : [];
  return [{ kind: 'script', at: i, end: i + 1, script: text.slice(option.length).replace(/^=/, '') }];
}

function scriptOption(spec: WrapperSpec, text: string): string | undefined {
  return spec.scriptOptions?.find((o) => text === o || text.startsWith(o.startsWith('--') ? `${o}=` : o));
}

function throughSpec(words: readonly ShellWord[], spec: WrapperSpec): Wrapped[] {
  if (spec.scriptAnywhere) {
    const at = words.findIndex((w, k) => k > 0 && scriptOption(spec, w.text));
    return at < 0 ? [] : scriptAt(words, at, scriptOption(spec, words[at].text)!);
  }
  let i = 1;
  for (; i < words.length; i++) {
    const text = words[i].text;
    if (text === '--') {
      i++;
      break;
    }
    if (!isOption(words[i])) break;
    if (spec.runsNothing?.includes(text)) return [];
    const script = scriptOption(spec, text);
    if (script) return scriptAt(words, i, script);
    if (spec.valued?.includes(text)) i++;
  }
  if (spec.assignments) while (i < words.length && isAssignment(words[i])) i++;
  i += spec.operands ?? 0;
  if (i >= words.length) return [];
  if (spec.joinsScript) return [{ kind: 'script', at: i, end: words.length, script: words.slice(i).map((w) => w.text).join(' ') }];
  return [{ kind: 'command', at: i, end: words.length }];
}

function throughShell(words: readonly ShellWord[]): Wrapped[] {
  let dashC = false;
  for (let i = 1; i < words.length; i++) {
    const text = words[i].text;
    if (text === '--') return [];
    if (SHELL_VALUED.has(text)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(text)) {
      if (text.startsWith('-') && text.includes('c')) dashC = true;
      continue;
    }
    if (text.startsWith('--')) {
      if (text === '--command' || text.startsWith('--command=')) dashC = true;
      continue;
    }
    // The first word that is no option: with -c the text run, else a script file (not looked into).
    return dashC ? [{ kind: 'script', at: i, end: i + 1, script: text }] : [];
  }
  return [];
}

function throughFind(words: readonly ShellWord[]): Wrapped[] {
  const found: Wrapped[] = [];
  for (let i = 1; i < words.length; i++) {
    if (!FIND_EXEC.has(words[i].text)) continue;
    let end = i + 1;
    while (end < words.length && words[end].text !== ';' && words[end].text !== '+') end++;
    if (end > i + 1) found.push({ kind: 'command', at: i + 1, end });
    i = end;
  }
  return found;
}

/**
 * What the simple command `words` runs besides its first program (see the file's header): empty for a
 * command that is no wrapper, or a wrapper given nothing to run (`env` alone prints the environment).
 */
export function wrappedCommands(words: readonly ShellWord[]): Wrapped[] {
  if (words.length === 0) return [];
  if (isAssignment(words[0])) {
    const at = words.findIndex((w) => !isAssignment(w));
    return at < 0 ? [] : [{ kind: 'command', at, end: words.length }];
  }
  if (RESERVED.has(words[0].text)) return words.length > 1 ? [{ kind: 'command', at: 1, end: words.length }] : [];
  const name = programName(words[0]);
  if (name === 'eval') return words.length > 1 ? [{ kind: 'script', at: 1, end: words.length, script: words.slice(1).map((w) => w.text).join(' ') }] : [];
  if (SHELLS.has(name)) return throughShell(words);
  if (name === 'find') return throughFind(words);
  const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
  return spec ? throughSpec(words, spec) : [];
}
