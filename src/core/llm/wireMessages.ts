import { randomUUID } from 'node:crypto';
import type { FinishReason, LLMMessage, ToolCall } from '../types';

/**
 * Conversions between Arbor's `LLMMessage` and the two wire formats (OpenAI chat completions, Ollama
 * `/api/chat`). Kept apart from the providers so each direction can be read and tested on its own.
 */

/** A message in the OpenAI chat-completions request shape (the fields Arbor uses). */
export type OpenAIWireMessage = Record<string, unknown> & { role: string };

/** Base64 image to a `data:` URL, guessing the type from its first bytes; URLs pass through unchanged. */
export function imageDataUrl(image: string): string {
  if (/^(data:|https?:)/i.test(image)) return image;
  const mime = image.startsWith('/9j/') ? 'image/jpeg'
    : image.startsWith('R0lGOD') ? 'image/gif'
      : image.startsWith('UklGR') ? 'image/webp'
        : 'image/png';
  return `data:${mime};base64,${image}`;
}

/** A `data:` URL to its bare base64 payload, which is what Ollama wants. */
export function bareBase64(image: string): string {
  const comma = image.indexOf(',');
  return image.startsWith('data:') && comma >= 0 ? image.slice(comma + 1) : image;
}

/**
 * Arbor messages to OpenAI messages: tool calls and `tool` results keep their ids, images become
 * `image_url` parts, and `thinking` is sent back as `reasoning_content` only when `sendThinking` is set.
 */
export function toOpenAIMessages(messages: readonly LLMMessage[], sendThinking = false): OpenAIWireMessage[] {
  return messages.map((m) => {
    if (m.role === 'tool' || (m.role === 'function' && m.toolCallId)) {
      return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
    }
    if (m.role === 'function') return { role: 'function', name: m.name ?? 'function', content: m.content };
    const out: OpenAIWireMessage = { role: m.role, content: m.content };
    if (m.name) out.name = m.name;
    if (m.images?.length && m.role === 'user') {
      out.content = [
        ...(m.content ? [{ type: 'text', text: m.content }] : []),
        ...m.images.map((img) => ({ type: 'image_url', image_url: { url: imageDataUrl(img) } })),
      ];
    }
    if (m.role === 'assistant') {
      if (m.toolCalls?.length) {
        out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } }));
        if (!m.content) out.content = null;
      }
      if (sendThinking && m.thinking) out.reasoning_content = m.thinking;
    }
    return out;
  });
}

/** The reasoning text of an OpenAI-compatible message or delta: `reasoning_content` (DeepSeek, vLLM) or `reasoning`. */
export function reasoningOf(part: unknown): string | undefined {
  const p = part as { reasoning_content?: unknown; reasoning?: unknown } | undefined;
  if (typeof p?.reasoning_content === 'string' && p.reasoning_content) return p.reasoning_content;
  if (typeof p?.reasoning === 'string' && p.reasoning) return p.reasoning;
  return undefined;
}

/** OpenAI `tool_calls` of a complete message to Arbor `ToolCall`s (non-function tools are dropped). */
export function fromOpenAIToolCalls(calls: unknown): ToolCall[] | undefined {
  if (!Array.isArray(calls) || calls.length === 0) return undefined;
  const out: ToolCall[] = [];
  for (const c of calls as Array<{ id?: string; type?: string; function?: { name?: string; arguments?: string } }>) {
    if (!c.function) continue;
    out.push({ id: c.id || newCallId(), type: 'function', function: { name: c.function.name ?? '', arguments: c.function.arguments ?? '' } });
  }
  return out.length ? out : undefined;
}

/** Collects streamed tool-call deltas (`{index, id?, function: {name?, arguments?}}`) into whole calls. */
export class ToolCallAccumulator {
  private readonly calls = new Map<number, { id?: string; name: string; arguments: string }>();

  private last = -1;

  add(deltas: unknown): void {
    if (!Array.isArray(deltas)) return;
    for (const d of deltas as Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>) {
      // Some servers leave `index` out: a piece with a new id starts a call, any other continues the last one.
      const continues = this.last >= 0 && (!d.id || d.id === this.calls.get(this.last)?.id);
      const index = typeof d.index === 'number' ? d.index : continues ? this.last : this.calls.size;
      this.last = index;
      const call = this.calls.get(index) ?? { name: '', arguments: '' };
      if (d.id) call.id = d.id;
      // Names normally come once; some servers repeat the whole name on every delta, others split it.
      if (d.function?.name && d.function.name !== call.name) call.name += d.function.name;
      if (d.function?.arguments) call.arguments += d.function.arguments;
      this.calls.set(index, call);
    }
  }

  /** The calls so far, in index order; `undefined` when there were none. */
  result(): ToolCall[] | undefined {
    if (this.calls.size === 0) return undefined;
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id ?? newCallId(), type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
  }
}

/** Ollama's wire message (the fields Arbor uses). */
export interface OllamaWireMessage {
  role: string;
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: Array<{ function: { name: string; arguments: Record<string, unknown> } }>;
  tool_name?: string;
}

/**
 * Arbor messages to Ollama messages: tool-call arguments go as objects (Ollama's shape), `tool` results
 * carry `tool_name` (Ollama matches results by name, found from the call id when `name` is not set), images
 * go as bare base64, and `thinking` only when `sendThinking` is set.
 */
export function toOllamaMessages(messages: readonly LLMMessage[], sendThinking = false): OllamaWireMessage[] {
  const namesById = new Map<string, string>();
  for (const m of messages) for (const c of m.toolCalls ?? []) namesById.set(c.id, c.function.name);
  return messages.map((m) => {
    const role = m.role === 'function' ? 'tool' : m.role;
    const out: OllamaWireMessage = { role, content: m.content };
    if (m.images?.length) out.images = m.images.map(bareBase64);
    if (m.role === 'assistant' && m.toolCalls?.length) {
      out.tool_calls = m.toolCalls.map((c) => ({ function: { name: c.function.name, arguments: parseArguments(c.function.arguments) } }));
    }
    if (role === 'tool') {
      const name = m.name ?? (m.toolCallId ? namesById.get(m.toolCallId) : undefined);
      if (name) out.tool_name = name;
    }
    if (sendThinking && m.thinking && m.role === 'assistant') out.thinking = m.thinking;
    return out;
  });
}

/** Ollama tool calls (arguments as objects) to Arbor `ToolCall`s (arguments as JSON text, with fresh ids). */
export function fromOllamaToolCalls(calls: unknown): ToolCall[] {
  if (!Array.isArray(calls)) return [];
  return (calls as Array<{ id?: string; function?: { name?: string; arguments?: unknown } }>)
    .filter((c) => c.function?.name)
    .map((c) => ({
      id: c.id || newCallId(),
      type: 'function' as const,
      function: {
        name: c.function?.name ?? '',
        arguments: typeof c.function?.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function?.arguments ?? {}),
      },
    }));
}

/** OpenAI's finish reasons are Arbor's; the legacy `function_call` counts as `tool_calls`. */
export function openAIFinishReason(reason: string | null | undefined): FinishReason | undefined {
  if (!reason) return undefined;
  return reason === 'function_call' ? 'tool_calls' : reason;
}

function parseArguments(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { _raw: text };
  }
}

function newCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}
