/**
 * How providers ask for a JSON answer (`CompletionOptions.responseFormat`): the wire fields of OpenAI's
 * `response_format`, and the schema written into the system text for a server or API that cannot take a
 * schema itself (OpenAI's `json_object` mode, VS Code's language models).
 */
import type { LLMMessage } from '../types';
import type { ResponseFormat } from './provider';

/** The instruction that carries the schema when the request cannot. */
export function schemaInstruction(format: ResponseFormat): string {
  return [
    'Answer with JSON only: one JSON value that matches this JSON Schema, with no other text before or after it.',
    JSON.stringify(format.schema),
  ].join('\n');
}

/**
 * `messages` with the schema instruction added to the first system message, or as a new first system
 * message when there is none (the messages given are not changed).
 */
export function withSchemaInstruction(messages: readonly LLMMessage[], format: ResponseFormat): LLMMessage[] {
  const instruction = schemaInstruction(format);
  const i = messages.findIndex((m) => m.role === 'system');
  if (i < 0) return [{ role: 'system', content: instruction }, ...messages];
  return messages.map((m, j) => (j === i ? { ...m, content: m.content.trim() ? `${m.content}\n\n${instruction}` : instruction } : m));
}

/**
 * Whether OpenAI's `strict: true` takes the schema as it is: an object at the root, and every object in it
 * lists all its properties as `required` with `additionalProperties: false`. A schema that does not is
 * sent with `strict: false`, which the server follows without guaranteeing.
 */
export function isStrictSchema(schema: unknown): boolean {
  if (!isRecord(schema) || schema.type !== 'object') return false;
  return strictAll(schema);
}

function strictAll(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(strictAll);
  if (!isRecord(node)) return true;
  const type = node.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object')) || isRecord(node.properties);
  if (isObject) {
    if (node.additionalProperties !== false) return false;
    const keys = isRecord(node.properties) ? Object.keys(node.properties) : [];
    const required = Array.isArray(node.required) ? node.required : [];
    if (!keys.every((k) => required.includes(k))) return false;
  }
  for (const key of ['properties', '$defs', 'definitions']) {
    if (isRecord(node[key]) && !Object.values(node[key] as Record<string, unknown>).every(strictAll)) return false;
  }
  for (const key of ['items', 'anyOf', 'allOf', 'oneOf', 'prefixItems']) {
    if (node[key] !== undefined && !strictAll(node[key])) return false;
  }
  return true;
}

/** OpenAI's `response_format` asking for `format`: a JSON Schema, or (`jsonObject`) any JSON object. */
export function openAIResponseFormat(format: ResponseFormat, jsonObject: boolean): Record<string, unknown> {
  if (jsonObject) return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: format.name || 'answer', schema: format.schema, strict: isStrictSchema(format.schema) } };
}

/** Whether a 400 from an OpenAI-compatible server refuses `json_schema` (its message names the field), so `json_object` may do. */
export function refusesJsonSchema(status: number | undefined, message: string): boolean {
  return status === 400 && /response_format|json_schema/i.test(message);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
