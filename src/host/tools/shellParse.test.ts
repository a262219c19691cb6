import { describe, expect, it } from 'vitest';
import { parseShell, type ShellWord } from './shellParse';

const texts = (words: ShellWord[]) => words.map((w) => w.text);

describe('parseShell', () => {
  it('gives the words a program receives, quotes and escapes removed, split into simple commands', () => {
    const parsed = parseShell(`'n'"p"m pu\\blish --tag "a b" && git -C . push 2>&1 > out.txt; echo x | tee y`);
    expect(parsed.commands.map(texts)).toEqual([['npm', 'publish', '--tag', 'a b'], ['git', '-C', '.', 'push', '2'], ['echo', 'x'], ['tee', 'y']]);
    expect(parsed.tokens.filter((t) => t.op).map((t) => t.op)).toEqual(['&&', '>&', '>', ';', '|']);
    expect(parsed.unsure).toEqual([]);
    expect(parsed.nested).toEqual([]);
  });

  it('joins continued lines and splits at line breaks outside quotes', () => {
    expect(parseShell('npm pub\\\nlish').commands.map(texts)).toEqual([['npm', 'publish']]);
    expect(parseShell('a\nb "c\nd"').commands.map(texts)).toEqual([['a'], ['b', 'c\nd']]);
    expect(parseShell('a\\\\\nb').commands.map(texts)).toEqual([['a\\'], ['b']]);
  });

  it('finds the text substitutions run, also inside double quotes, and says they cannot be judged', () => {
    const parsed = parseShell('echo "$(npm publish)" `rm x` $(a $(b) c) <(d)');
    expect(parsed.nested).toEqual(['npm publish', 'rm x', 'a $(b) c', 'd']);
    expect(parsed.unsure[0]).toBe('it uses shell substitution ($(), which never runs without asking');
    expect(parseShell("echo '$(x)' '`y`'")).toMatchObject({ nested: [], unsure: [] });
  });

  it('marks variables, globs and brace expansion, and what stands in a command\'s place', () => {
    const [words] = parseShell('$CMD "$X" *.ts {a,b} [ab] \'*\' y=1').commands;
    expect(words.map((w) => [w.text, w.variable, w.pattern])).toEqual([
      ['$CMD', true, false],
      ['$X', true, false],
      ['*.ts', false, true],
      ['{a,b}', false, true],
      ['[ab]', false, true],
      ['*', false, false],
      ['y=1', false, false],
    ]);
    expect(parseShell('$CMD x').unsure).toEqual(['"$CMD" stands in the command\'s place, and its value is known only when it runs']);
    expect(parseShell('FOO=1 np* x').unsure).toEqual(['a pattern ("np*") stands in the command\'s place']);
    expect(parseShell("echo '{a,b}'").commands[0][1].pattern).toBe(false);
  });

  it('asks about comments, here-documents, open quotes and $\'…\', and keeps what could still run', () => {
    expect(parseShell('a#b; rm x')).toMatchObject({ nested: ['b; rm x'], unsure: ['it has a comment (#…), which can hide words'] });
    expect(parseShell("echo hi # it's").unsure).toEqual(['it has a comment (#…), which can hide words']);
    const heredoc = parseShell('cat <<EOF\nrm x\nEOF');
    expect(heredoc.unsure).toEqual(['it has a here-document (<<), whose text is not judged']);
    expect(heredoc.commands.map(texts)).toEqual([['cat'], ['rm', 'x'], ['EOF']]);
    expect(parseShell('sh <<< "npm publish"').nested).toEqual(['npm publish']);
    const open = parseShell('echo "a; rm -rf /');
    expect(open.unsure).toEqual(['a quote or a substitution in it is not closed']);
    expect(open.nested).toContain('rm -rf /');
    expect(parseShell("npm $'publish'").unsure).toEqual(["it uses $'…' quoting, which shells read differently"]);
    expect(parseShell('echo ${}').unsure).toContain('it has a ${…} the shell would refuse');
  });
});
