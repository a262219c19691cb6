/**
 * Which commands `run_command` runs without asking, asks about, or refuses, by the user's
 * `arbor.tools.commandAllowList` and `arbor.tools.commandDenyList` (command prefixes). The longest
 * prefix that matches decides, the deny list winning a tie. A command runs without asking only when an
 * allowed prefix matches it and nothing follows that prefix that could make it another command: no
 * chaining (`;`, `&&`, `||`, `&`, `|`, a line break), no redirection to a file, no subshell, and no
 * shell substitution anywhere (`$(…)`, backticks, `${…}`, `<(…)`). A deny-listed prefix refuses the
 * command wherever it starts one of the commands of a chain. The deny list is a convenience, not a
 * sandbox: a command it misses still asks, since only the allow list skips the question. Pure.
 */

/** What happens to a command. */
export interface CommandVerdict {
  kind: 'run' | 'ask' | 'deny';
  /** Why, for the approval card (and, for `deny`, the model). */
  reason: string;
}

/** What the shell would do with a command besides running its first program. */
export interface ShellScan {
  /** The first shell substitution, as written (`$(`, `` ` ``, `${`, `<(`, `>(`). */
  substitution?: string;
  /** Operators outside quotes (chaining, pipes, redirections, subshells), with where they start. */
  operators: Array<{ at: number; op: string }>;
  /** The commands of the chain, split at the operators and at substitutions, trimmed. */
  segments: string[];
  /** A quote is left open (a shell would wait for more input). */
  unclosedQuote: boolean;
}

const OPERATOR = /^(?:&&|\|\||;;|\|&|&>>|&>|>>|>\||<<<|<<|<>|[;&|<>()\n\r])/;
/** `2>&1`, `>&2`, `3>&-`: duplicating or closing a descriptor writes no file. */
const FD_DUP = /^\d*[<>]&(?:\d+|-)(?![^\s;&|<>()])/;

/**
 * Scans a command as a POSIX shell reads it: quotes (`'…'` literal, `"…"` where `$` and backticks still
 * expand) and backslash escapes.
 */
export function scanShell(command: string): ShellScan {
  const operators: ShellScan['operators'] = [];
  const segments: string[] = [];
  let substitution: string | undefined;
  let quote: "'" | '"' | undefined;
  let start = 0;
  const cut = (end: number, next: number) => {
    const seg = command.slice(start, end).trim();
    if (seg) segments.push(seg);
    start = next;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote === '"' && c === '"') {
      quote = undefined;
      continue;
    }
    const two = command.slice(i, i + 2);
    if (c === '`' || two === '$(' || two === '${') {
      substitution ??= c === '`' ? '`' : two;
      if (c !== '$' || two === '$(') cut(i, i + (c === '`' ? 1 : 2));
      if (c === '$') i++;
      continue;
    }
    if (quote === '"') continue;
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (two === '<(' || two === '>(') {
      substitution ??= two;
      cut(i, i + 2);
      i++;
      continue;
    }
    // A descriptor's number is part of the word before it: `2>&1` starts at the 2.
    if (c === '>' || c === '<' || (/\d/.test(c) && (i === 0 || /\s/.test(command[i - 1])))) {
      const dup = FD_DUP.exec(command.slice(i));
      if (dup) {
        i += dup[0].length - 1;
        continue;
      }
    }
    const op = OPERATOR.exec(command.slice(i));
    if (op) {
      operators.push({ at: i, op: op[0] === '\r' || op[0] === '\n' ? 'a line break' : op[0] });
      // Redirections name a file, not a command: only chaining starts a new segment.
      if (!/^[<>]|^&>/.test(op[0])) cut(i, i + op[0].length);
      i += op[0].length - 1;
    }
  }
  cut(command.length, command.length);
  return { substitution, operators, segments, unclosedQuote: quote !== undefined };
}

/** Trimmed, with runs of spaces and tabs as one space; line breaks stay (they separate commands). */
function normalize(command: string): string {
  return command.trim().replace(/[ \t]+/g, ' ');
}

/** Whether `prefix` starts `command` on a word boundary (`git` starts `git status`, not `gitk`). */
function startsWith(command: string, prefix: string): boolean {
  if (!prefix || !command.startsWith(prefix)) return false;
  if (command.length === prefix.length || !/\w$/.test(prefix)) return true;
  return !/\w/.test(command[prefix.length]);
}

type Match = { list: 'allow' | 'deny'; prefix: string };

/** The longest prefix of either list that starts `command`; the deny list wins a tie. */
function longestMatch(command: string, allow: readonly string[], deny: readonly string[]): Match | undefined {
  let best: Match | undefined;
  const consider = (list: Match['list'], raw: string) => {
    const prefix = normalize(raw);
    if (!startsWith(command, prefix)) return;
    if (!best || prefix.length > best.prefix.length || (prefix.length === best.prefix.length && list === 'deny')) best = { list, prefix };
  };
  for (const p of allow) consider('allow', p);
  for (const p of deny) consider('deny', p);
  return best;
}

/** Leading `NAME=value` assignments and wrappers that run the rest as a command (`sudo`, `env`, `nohup`…). */
const WRAPPERS = /^(?:[A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S*)\s+|(?:sudo|env|command|exec|nohup|time|nice|builtin)\s+)+/;

function denied(segment: string, allow: readonly string[], deny: readonly string[]): Match | undefined {
  const seg = normalize(segment);
  for (const candidate of new Set([seg, seg.replace(WRAPPERS, '')])) {
    const m = longestMatch(candidate, allow, deny);
    if (m?.list === 'deny') return m;
  }
  return undefined;
}

/**
 * The verdict on `command` under the allow and deny lists (see the file's header). An empty command
 * and one no allowed prefix matches ask.
 */
export function commandPolicy(command: string, allow: readonly string[], deny: readonly string[]): CommandVerdict {
  const cmd = normalize(command);
  if (!cmd) return { kind: 'ask', reason: 'the command is empty' };
  const scan = scanShell(cmd);
  for (const segment of [cmd, ...scan.segments]) {
    const m = denied(segment, allow, deny);
    if (m) {
      return {
        kind: 'deny',
        reason: `"${m.prefix}" is on arbor.tools.commandDenyList, so Arbor does not run ${segment === cmd ? 'this command' : `"${segment}"`}. Do not try it another way; tell the user, who can run it themselves or change the setting.`,
      };
    }
  }
  const whole = longestMatch(cmd, allow, deny);
  if (!whole) return { kind: 'ask', reason: 'not on arbor.tools.commandAllowList' };
  if (scan.unclosedQuote) return { kind: 'ask', reason: 'a quote in it is not closed' };
  if (scan.substitution) return { kind: 'ask', reason: `it uses shell substitution (${scan.substitution}), which never runs without asking` };
  const beyond = scan.operators.find((o) => o.at >= whole.prefix.length);
  if (beyond) return { kind: 'ask', reason: `it goes on past "${whole.prefix}" (on arbor.tools.commandAllowList) with ${beyond.op === 'a line break' ? beyond.op : `"${beyond.op}"`}` };
  return { kind: 'run', reason: `"${whole.prefix}" is on arbor.tools.commandAllowList` };
}
