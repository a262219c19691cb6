import { describe, expect, it } from 'vitest';
import { cleanTerminalOutput, formatCommandResult, OutputCollector, type CommandResult } from './commandOutput';

describe('OutputCollector', () => {
  it('keeps everything while it fits', () => {
    const c = new OutputCollector(10);
    c.push('abc');
    c.push('de');
    expect([c.text(), c.omitted]).toEqual(['abcde', 0]);
  });

  it('keeps the first and last half across chunks and counts what falls between', () => {
    const c = new OutputCollector(8);
    for (const chunk of ['ab', 'cdef', 'ghij', 'k', 'lmnop']) c.push(chunk);
    expect(c.omitted).toBe(8);
    expect(c.text()).toBe('abcd\n[… 8 characters of output left out …]\nmnop');
  });
});

describe('cleanTerminalOutput', () => {
  it('removes colours, cursor moves, titles and shell integration marks', () => {
    const raw = '\x1b]633;C\x07\x1b[1;31merror\x1b[0m: failed\r\n\x1b]0;title\x1b\\\x1b[2Kdone\x1b(B\r\n\x1b]633;D;1\x07';
    expect(cleanTerminalOutput(raw)).toBe('error: failed\ndone\n');
  });

  it('keeps what a line redrawn with carriage returns showed last', () => {
    expect(cleanTerminalOutput('progress 10%\rprogress 55%\rprogress 100%\nnext\r\n')).toBe('progress 100%\nnext\n');
    expect(cleanTerminalOutput('tab\tand bell\x07 and nul\x00')).toBe('tab\tand bell and nul');
  });
});

describe('formatCommandResult', () => {
  const base: CommandResult = { exitCode: 0, output: 'ok\n\n', omitted: 0, ended: 'exited', via: 'process' };

  it('gives the command, where it ran, how it ended and its output', () => {
    expect(formatCommandResult('npm test', 'the workspace folder', base, 300)).toBe('$ npm test\n(in the workspace folder; exit code 0)\nok');
    expect(formatCommandResult('false', 'src', { ...base, exitCode: 1, output: '' }, 300)).toBe('$ false\n(in src; exit code 1)\n(no output)');
    expect(formatCommandResult('x', 'src', { ...base, exitCode: undefined, signal: 'SIGSEGV' }, 300)).toContain('(in src; killed by SIGSEGV)');
    expect(formatCommandResult('x', 'src', { ...base, exitCode: undefined, ended: 'aborted' }, 300)).toContain('(in src; stopped by the user)');
    expect(formatCommandResult('x', 'src', { ...base, exitCode: undefined, via: 'terminal' }, 300)).toContain('(in src; exit code unknown)');
  });

  it('says a command stopped at its time limit and what to do about it', () => {
    const text = formatCommandResult('npm run dev', 'web', { ...base, exitCode: undefined, ended: 'timedOut' }, 30);
    expect(text).toContain('(in web; stopped after 30 seconds (the call\'s time limit))');
    expect(text).toMatch(/run it again with a larger timeoutSeconds; if it is a server or a watcher that never ends, ask the user to run it in a terminal/);
  });
});
