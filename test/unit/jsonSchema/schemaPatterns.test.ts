/**
 * JSON Schema `pattern` and `patternProperties` from outside (a tool's input schema, an output schema, a
 * flow state's `output`) run on RE2, never on JavaScript's backtracking engine: the catastrophic pattern
 * `^(a+)+$` answers at once, a pattern only backtracking can run is refused with a reason naming it, and
 * every other pattern matches the strings JavaScript's engine would.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineTool, ToolExecutor, type ToolCall } from '../../../src/core/index';
import { parseFlowFile } from '../../../src/core/flows/flowFile';
import { re2RegExp, SchemaPatternError } from '../../../src/core/jsonSchema/schemaPattern';
import { compileOutputSchema } from '../../../src/core/structured/outputSchema';

const CATASTROPHIC = '^(a+)+$';
/** 40 `a`s and a `!`: JavaScript's engine needs about 2^40 steps to say no (27 of them already block for 2 s). */
const EVIL_INPUT = `${'a'.repeat(40)}!`;

/**
 * A tripwire on JavaScript's engine: running the catastrophic pattern with `RegExp.prototype.test` throws
 * at once instead of freezing the test run, so a validator that still uses the backtracking engine fails
 * here in milliseconds.
 */
function tripwire() {
  const original = RegExp.prototype.test;
  return vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
    if (this.source === CATASTROPHIC) throw new Error(`the backtracking engine ran ${CATASTROPHIC}`);
    return original.call(this, text);
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

const call = (name: string, args: unknown): ToolCall => ({ id: 'c1', type: 'function', function: { name, arguments: JSON.stringify(args) } });
const tool = (name: string, inputSchema: Record<string, unknown>) => defineTool({ name, description: `The ${name} tool.`, inputSchema, readOnly: true, run: () => 'ran' });

describe('a catastrophic pattern runs in linear time', () => {
  it('in an output schema: the answer gets a pattern problem, and JavaScript\'s engine never runs the pattern', async () => {
    const spy = tripwire();
    const schema = await compileOutputSchema({ type: 'object', properties: { id: { type: 'string', pattern: CATASTROPHIC } } });
    expect(schema.check(JSON.stringify({ id: EVIL_INPUT }))).toEqual({ ok: false, problems: [{ path: '$.id', message: `must match pattern "${CATASTROPHIC}"` }] });
    expect(schema.check(JSON.stringify({ id: 'aaaa' }))).toEqual({ ok: true, value: { id: 'aaaa' } });
    expect(spy.mock.contexts.some((re) => (re as RegExp).source === CATASTROPHIC)).toBe(false);
  });

  it('in a tool\'s input schema, as `pattern` and as a `patternProperties` key', async () => {
    tripwire();
    const executor = new ToolExecutor([
      tool('lookup', { type: 'object', properties: { id: { type: 'string', pattern: CATASTROPHIC } } }),
      tool('tags', { type: 'object', patternProperties: { [CATASTROPHIC]: { type: 'number' } } }),
    ]);
    const first = await executor.prepare(call('lookup', { id: EVIL_INPUT }));
    expect(first.ok).toBe(false);
    expect(!first.ok && first.error).toContain(`"id" must match pattern "${CATASTROPHIC}"`);
    // The key does not match, so its value is not checked against {type: number}.
    expect((await executor.prepare(call('tags', { [EVIL_INPUT]: 'text' }))).ok).toBe(true);
    const matching = await executor.prepare(call('tags', { aaa: 'text' }));
    expect(!matching.ok && matching.error).toContain('must be number');
  });
});

describe('a pattern only backtracking can run is refused, never run', () => {
  it('`^(a)\\1$` (JavaScript reads it) is an error naming the pattern and why', async () => {
    expect(new RegExp('^(a)\\1$', 'u').test('aa')).toBe(true);
    const refused = await compileOutputSchema({ type: 'string', pattern: '^(a)\\1$' }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(refused?.message).toMatch(/^outputSchema is refused: pattern "\^\(a\)\\\\1\$" uses a backreference \(\\1\), which needs a backtracking regular expression engine/);
    expect(() => re2RegExp('(?<=a)b', 'u')).toThrow(SchemaPatternError);
    expect(() => re2RegExp('(?<=a)b', 'u')).toThrow(/lookahead or lookbehind/);
    expect(() => re2RegExp('a(?!b)', 'u')).toThrow(/lookahead or lookbehind/);
    expect(() => re2RegExp('(?<x>a)\\k<x>', 'u')).toThrow(/named backreference/);
    expect(() => re2RegExp('(a)(b)(c)(d)(e)(f)(g)(h)\\8', 'u')).toThrow(/backreference \(\\8\)/);
    expect(() => re2RegExp('a{', 'u')).toThrow(/is not a valid regular expression \(Incomplete quantifier\)/);
  });

  it('a tool with such a schema is left out, with the reason logged, and the other tools are still offered', async () => {
    const warnings: string[] = [];
    const executor = new ToolExecutor([tool('bad', { type: 'object', properties: { x: { type: 'string', pattern: '(x+)+\\1' } } }), tool('good', { type: 'object' })], { logger: { warn: (m) => warnings.push(m) } });
    expect(executor.definitions().map((d) => d.function.name)).toEqual(['good']);
    expect(warnings).toEqual([expect.stringMatching(/^Tool "bad" is not offered: its inputSchema is refused: pattern "\(x\+\)\+\\\\1" uses a backreference/)]);
    expect(executor.refusals).toEqual(warnings);
    const p = await executor.prepare(call('bad', { x: 'x' }));
    expect(p.ok).toBe(false);
    await expect(executor.ready()).rejects.toThrow(/Tool "bad" is not offered/);
  });

  it('a flow state\'s `output` with such a pattern is a diagnostic at that `output`', () => {
    const text = [
      'start: ask',
      'states:',
      '  ask:',
      '    type: agent',
      '    userTemplate: "Go"',
      '    output:',
      '      type: object',
      '      properties: {a: {type: string, pattern: "^(?=x)"}}',
      '    next: done',
      '  done:',
      '    type: finish',
      '    template: "ok"',
    ].join('\n');
    const parsed = parseFlowFile({ path: 'flows/f.yaml', name: 'f', bytes: new TextEncoder().encode(text) });
    expect(parsed.flow).toBeUndefined();
    expect(parsed.diagnostics).toEqual([
      expect.objectContaining({ file: 'flows/f.yaml', line: 7, severity: 'error', message: expect.stringMatching(/^`output` is refused: pattern "\^\(\?=x\)" uses lookahead or lookbehind/) }),
    ]);
  });
});

describe('RE2 matches what JavaScript\'s engine matches', () => {
  const cases: Array<[string, string[]]> = [
    ['^\\d{3}-\\d{4}$', ['555-1234', '555-12345', '٣٣٣-٣٣٣٣']],
    ['^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$', ['a.b@c-d.io', 'é@x.io', 'a@b.c']],
    ['^\\s+$', [' ', '\u00a0', '\u2028', '\ufeff', '\u000b', 'x']],
    ['^\\S$', ['\u00a0', 'x', ' ']],
    ['^[\\s,]+$', ['\u3000,', 'a']],
    ['^.$', ['\n', '\r', '\u2028', 'x', '😀']],
    ['^[^]$', ['\n', '😀']],
    ['^\\uD83D\\uDE00$', ['😀', '\ud83d']],
    ['^\\u{1F600}$', ['😀']],
    ['^(?<year>\\d{4})-(?<month>\\d{2})$', ['2024-01', '24-01']],
    ['^[[:a]+$', ['[:a', 'b']],
    ['^\\p{L}+$', ['héllo', 'h1']],
    ['^[^/]+\\/x$', ['a/x', 'a//x']],
    ['colou?r', ['The colour', 'color', 'colr']],
    ['^\\bword\\b', ['word up', 'words']],
    ['', ['', 'anything']],
  ];
  it.each(cases)('%s', (pattern, inputs) => {
    const re2 = re2RegExp(pattern, 'u');
    const js = new RegExp(pattern, 'u');
    for (const input of inputs) expect([input, re2.test(input)]).toEqual([input, js.test(input)]);
  });

  it('compiles each pattern once (the same object comes back), and names it for Ajv', () => {
    expect(re2RegExp('^a+$', 'u')).toBe(re2RegExp('^a+$', 'u'));
    expect(String(re2RegExp('^a+$', 'u'))).toBe('/^a+$/u');
  });
});
