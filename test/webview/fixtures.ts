/**
 * Chat states for the webview tests and benchmark: realistic Markdown (lists, inline code,
 * fenced TypeScript and Python), sibling positions and the fields an answer carries.
 */
import type { ChatState, MessageView } from '../../src/shared/protocol';

/** One message with sensible defaults; `overrides` wins. */
export function message(nodeId: string, role: MessageView['role'], content: string, overrides: Partial<MessageView> = {}): MessageView {
  const parentId = nodeId.includes('.') ? nodeId.slice(0, nodeId.lastIndexOf('.')) : '';
  return {
    nodeId,
    parentId,
    role,
    content,
    timestamp: '2026-11-25T12:00:00.000Z',
    siblings: { index: 1, count: 1 },
    chips: [],
    attachments: [],
    ...overrides,
  };
}

/** A state that gives a fresh webview `path` whole (every id and view; nothing kept from before). */
export function chatState(path: MessageView[], overrides: Partial<ChatState> = {}): ChatState {
  return {
    conversationId: 'conv-1',
    title: 'Design a cache',
    currentNodeId: path.at(-1)?.nodeId ?? '',
    pathLength: path.length,
    windowStart: 0,
    keep: 0,
    ids: path.map((m) => m.nodeId),
    views: path,
    totalCostUsd: 0.0123,
    branchCostUsd: overrides.totalCostUsd ?? 0.0123,
    model: 'llama3.2',
    provider: 'ollama',
    busy: false,
    restricted: false,
    tools: { enabled: true },
    ...overrides,
  };
}

const ANSWERS = [
  (i: number) => `Here is a plan for step ${i}:\n\n1. Read the **config** with \`loadConfig()\`\n2. Validate it\n3. Cache the result\n\n\`\`\`ts\nexport function cached${i}<T>(key: string, load: () => T): T {\n  const hit = cache.get(key);\n  if (hit !== undefined) {\n    return hit as T;\n  }\n  const value = load();\n  cache.set(key, value);\n  return value;\n}\n\`\`\`\n\nThis keeps *one* entry per key.`,
  (i: number) => `A Python version (${i}):\n\n\`\`\`python\ndef fib(n: int) -> int:\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\`\`\`\n\n> Note: iterative, so no recursion limit.`,
  (i: number) => `Short answer ${i}: use a \`Map\` with an LRU policy; see [the docs](https://example.com/lru) and keep the size under 1,000 entries.\n\n- pros: simple\n- cons: no TTL`,
];

/** A path of `count` messages alternating user and assistant, every fourth with siblings. */
export function longPath(count: number): MessageView[] {
  const path: MessageView[] = [];
  let id = '0';
  for (let i = 0; i < count; i += 1) {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const siblings = i % 4 === 1 ? { index: 2, count: 2, prevNodeId: `${id}-prev` } : { index: 1, count: 1 };
    const content = role === 'user' ? `Question ${i}: how would you make \`step${i}\` faster and safer?` : ANSWERS[i % ANSWERS.length](i);
    path.push(
      message(id, role, content, {
        siblings,
        ...(role === 'assistant'
          ? { model: 'llama3.2', usage: { promptTokens: 120 + i, completionTokens: 80, totalTokens: 200 + i }, costUsd: 0.0004 }
          : {}),
        chips: i % 10 === 1 ? [{ path: 'src/cache.ts', startLine: 10, endLine: 42, source: 'workspace', score: 3.2 }] : [],
      }),
    );
    id = `${id}.0`;
  }
  return path;
}
