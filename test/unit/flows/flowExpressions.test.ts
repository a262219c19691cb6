import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../../src/core/flows/flowExpressions';
import { FlowExpressionError } from '../../../src/core/flows/flowErrors';

const run = (expr: string, memory: Record<string, unknown>) => compileExpression(expr).evaluate(memory);

describe('the flow rule language', () => {
  it('evaluates comparisons, logic, arithmetic and members of the memory', () => {
    const memory = { verdict: 'changes_needed', round: 2, issues: [{ file: 'a.ts' }], info: { command: { exitCode: 1 } } };
    expect(run("verdict == 'changes_needed' && round < 3", memory)).toBe(true);
    expect(run("verdict == 'ok' || round >= 3", memory)).toBe(false);
    expect(run('round + 1', memory)).toBe(3);
    expect(run('issues[0].file', memory)).toBe('a.ts');
    expect(run('info.command.exitCode != 0', memory)).toBe(true);
    expect(run('len(issues) > 0 && !done', memory)).toBe(true);
    expect(run("contains(['a', 'b'], lower('B'))", memory)).toBe(true);
    expect(run("round > 1 ? 'late' : 'early'", memory)).toBe('late');
    // A key the memory does not have yet is missing, not an error; it equals null.
    expect(run('missing == null', memory)).toBe(true);
    expect(run('missing.deeper', memory)).toBeUndefined();
    expect(run('missing < 3', memory)).toBe(false);
  });

  it('refuses at compile time whatever reaches outside the memory, naming the expression', () => {
    for (const expr of ['constructor', 'verdict.constructor', "verdict['__proto__']", 'this.x', 'x.prototype', 'toString()', 'verdict.toUpperCase()', 'a = 1', 'new Date()', 'a; b', "'a' in memory", 'eval("1")']) {
      let error: unknown;
      try {
        compileExpression(expr);
      } catch (err) {
        error = err;
      }
      expect(error, expr).toBeInstanceOf(FlowExpressionError);
      expect((error as Error).message, expr).toContain(`"${expr}"`);
    }
  });

  it('refuses at run time a computed key or member of a value that is not memory data', () => {
    const viaKey = compileExpression("verdict[k]");
    expect(() => viaKey.evaluate({ verdict: {}, k: '__proto__' })).toThrow(/is not a memory key/);
    const ofString = compileExpression('verdict.length > 0');
    expect(() => ofString.evaluate({ verdict: 'ok' })).toThrow(/Expression "verdict.length > 0" is refused: it reads "length" of a string/);
    // Inherited properties are not there: only own data properties are read.
    expect(compileExpression('o.hasOwnProperty').evaluate({ o: {} })).toBeUndefined();
    expect(compileExpression('o.toString').evaluate({ o: { a: 1 } })).toBeUndefined();
    // A value that is not plain data (were one ever put in memory) is not read into.
    expect(() => compileExpression('d.x').evaluate({ d: new Date() })).toThrow(/refused/);
  });

  it('reports a syntax error with its index in the text', () => {
    try {
      compileExpression("verdict == 'ok' &&");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(FlowExpressionError);
      expect((err as FlowExpressionError).index).toBeGreaterThan(10);
    }
  });
});
