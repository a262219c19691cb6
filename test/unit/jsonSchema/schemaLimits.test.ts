/**
 * Schemas and values too large, too deep or too self-referential for Ajv are refused with a reason before
 * Ajv sees them (a tool's input schema, an output schema, a flow state's `output`), instead of blocking
 * the host for seconds or throwing `RangeError: Maximum call stack size exceeded`.
 */
import { describe, expect, it } from 'vitest';
import { defineTool, ToolExecutor, type ToolCall } from '../../../src/core/index';
import { parseFlowFile } from '../../../src/core/flows/flowFile';
import { checkSchemaLimits, SchemaLimitError, valueDepthProblem } from '../../../src/core/jsonSchema/schemaLimits';
import { compileOutputSchema } from '../../../src/core/structured/outputSchema';

const call = (name: string, args: string): ToolCall => ({ id: 'c1', type: 'function', function: { name, arguments: args } });
const tool = (name: string, inputSchema: Record<string, unknown>) => defineTool({ name, description: `The ${name} tool.`, inputSchema, readOnly: true, run: () => 'ran' });

async function refusal(schema: unknown): Promise<string | undefined> {
  return compileOutputSchema(schema).then(
    () => undefined,
    (e: unknown) => (e as Error).message,
  );
}

/** A schema whose properties nest `levels` deep. */
function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

/** JSON text of `{"c": {"c": … {}}}`, `levels` deep (built as text: building it as a value and stringifying would recurse). */
const deepJson = (levels: number) => `${'{"c":'.repeat(levels)}{}${'}'.repeat(levels)}`;

/** A tree of nodes with children: recursion through `properties`, which ends with the value. */
const TREE = {
  $defs: { node: { type: 'object', properties: { name: { type: 'string' }, c: { $ref: '#/$defs/node' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
  $ref: '#/$defs/node',
};

describe('schemas over the limits are refused before Ajv compiles them', () => {
  it('12,000 properties (3 s and growing in Ajv) is refused by its size', async () => {
    const properties = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`p${i}`, { type: 'string' }]));
    expect(await refusal({ type: 'object', properties })).toBe('outputSchema is refused: the schema has more than 10,000 parts (objects, lists and properties); split it, or describe fewer fields.');
  });

  it('a schema nested 1,000 deep is refused by its depth, not a stack overflow inside Ajv', async () => {
    expect(await refusal(deepSchema(1000))).toMatch(/^outputSchema is refused: the schema is nested deeper than 100 levels/);
    expect(await refusal(deepSchema(40))).toBeUndefined();
  });

  it('a $ref to itself that never goes into the value is refused (Ajv would recurse until the stack runs out)', async () => {
    expect(await refusal({ $ref: '#' })).toMatch(/refers to itself through "\$ref": "#" without going into a property or item/);
    expect(await refusal({ $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' })).toMatch(/refers to itself/);
    expect(await refusal(TREE)).toBeUndefined();
  });

  it('a $ref graph that doubles at each of 30 levels (2^30 checks of one value) is refused', async () => {
    const $defs: Record<string, unknown> = { d30: { type: 'string' } };
    for (let i = 0; i < 30; i++) $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}`, minLength: 1 }] };
    expect(await refusal({ $defs, $ref: '#/$defs/d0' })).toMatch(/^outputSchema is refused: the schema's \$refs expand it to more than 50,000 subschemas/);
  });

  it('a schema over 1,000,000 characters is refused; one under every limit is not', () => {
    expect(() => checkSchemaLimits({ description: 'x'.repeat(1_000_001) })).toThrow(SchemaLimitError);
    expect(() => checkSchemaLimits({ type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(10_000) } } })).not.toThrow();
  });

  it('a tool whose schema is over a limit is left out with the reason; the others are offered', () => {
    const warnings: string[] = [];
    const executor = new ToolExecutor([tool('deep', deepSchema(500)), tool('loop', { type: 'object', allOf: [{ $ref: '#' }] }), tool('fine', { type: 'object' })], {
      logger: { warn: (m) => warnings.push(m) },
    });
    expect(executor.tools.map((t) => t.name)).toEqual(['fine']);
    expect(warnings).toEqual([
      expect.stringMatching(/^Tool "deep" is not offered: its inputSchema is refused: the schema is nested deeper than 100 levels/),
      expect.stringMatching(/^Tool "loop" is not offered: its inputSchema is refused: the schema refers to itself/),
    ]);
  });

  it("a flow state's `output` nested 150 deep is a diagnostic at that `output`", () => {
    const schema = JSON.stringify(deepSchema(150));
    const text = `start: ask\nstates:\n  ask:\n    type: agent\n    userTemplate: "Go"\n    output: ${schema}\n    next: done\n  done:\n    type: finish\n    template: "ok"\n`;
    const parsed = parseFlowFile({ path: 'flows/deep.yaml', name: 'deep', bytes: new TextEncoder().encode(text) });
    expect(parsed.diagnostics.map((d) => [d.line, d.message])).toEqual([[6, expect.stringMatching(/^`output` is refused: the schema is nested deeper than 100 levels/)]]);
  });
});

describe('values nested too deeply are a problem, not a RangeError', () => {
  it('an answer nested 20,000 deep against a recursive schema', async () => {
    const schema = await compileOutputSchema(TREE);
    expect(schema.check(deepJson(20_000))).toEqual({ ok: false, problems: [{ path: '$', message: 'is nested deeper than 256 levels of objects and lists; send a flatter value' }] });
    expect(schema.check(deepJson(200)).ok).toBe(true);
  });

  it("a tool's arguments nested 20,000 deep", async () => {
    const executor = new ToolExecutor([tool('tree', { type: 'object', properties: { c: { $ref: '#' } } })]);
    const p = await executor.prepare(call('tree', deepJson(20_000)));
    expect(p.ok).toBe(false);
    expect(!p.ok && p.error).toContain('the arguments is nested deeper than 256 levels of objects and lists');
    expect((await executor.prepare(call('tree', deepJson(100)))).ok).toBe(true);
  });

  it('counts levels of objects and lists alike, without recursing itself', () => {
    expect(valueDepthProblem(JSON.parse(`${'['.repeat(257)}${']'.repeat(257)}`))).toMatch(/deeper than 256/);
    expect(valueDepthProblem(JSON.parse(`${'['.repeat(256)}${']'.repeat(256)}`))).toBeUndefined();
    expect(valueDepthProblem(JSON.parse(deepJson(100_000)), 10)).toMatch(/deeper than 10 levels/);
  });
});
