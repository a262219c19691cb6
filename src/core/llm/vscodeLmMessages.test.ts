import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors';
import type { LLMMessage } from '../types';
import { SYSTEM_CLOSE, SYSTEM_OPEN, toLmMessages, toLmTools, type LmPartFactory } from './vscodeLmMessages';

// Plain stand-ins for VS Code's part and message classes, with the same fields.
class TextPart {
  constructor(readonly value: string) {}
}
class ToolCallPart {
  constructor(readonly callId: string, readonly name: string, readonly input: object) {}
}
class ToolResultPart {
  constructor(readonly callId: string, readonly content: unknown[]) {}
}
type Part = TextPart | ToolCallPart | ToolResultPart;
interface Message {
  role: 'user' | 'assistant';
  content: Part[];
}
const factory: LmPartFactory<Part, Message> = {
  text: (v) => new TextPart(v),
  toolCall: (id, name, input) => new ToolCallPart(id, name, input),
  toolResult: (id, content) => new ToolResultPart(id, content),
  user: (content) => ({ role: 'user', content }),
  assistant: (content) => ({ role: 'assistant', content }),
};

describe('toLmMessages', () => {
  it('puts the system prompt first as a fenced User message and keeps the turns in order', () => {
    const out = toLmMessages(
      [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Why do leaves fall?' },
        { role: 'assistant', content: 'Abscission.', thinking: 'private' },
        { role: 'user', content: 'More?' },
      ],
      factory,
      'vscode:copilot/gpt-4o',
    );
    expect(out.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'user']);
    const system = (out[0].content[0] as TextPart).value;
    expect(system).toContain(`${SYSTEM_OPEN}\nAnswer in French.\n${SYSTEM_CLOSE}`);
    expect(system.indexOf(SYSTEM_OPEN)).toBeGreaterThan(0);
    expect(out[2].content).toEqual([new TextPart('Abscission.')]);
    expect(JSON.stringify(out)).not.toContain('private');
  });

  it('sends tool calls as ToolCallParts and each run of results as one User message of ToolResultParts', () => {
    const messages: LLMMessage[] = [
      { role: 'user', content: 'Count.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c1', type: 'function', function: { name: 'leaf_counter', arguments: '{"tree":"oak"}' } },
          { id: 'c2', type: 'function', function: { name: 'odd', arguments: 'not json' } },
        ],
      },
      { role: 'tool', content: '12 leaves', toolCallId: 'c1' },
      { role: 'tool', content: 'error', toolCallId: 'c2' },
      { role: 'assistant', content: 'Twelve.' },
    ];
    const out = toLmMessages(messages, factory, 'm');
    expect(out).toHaveLength(4);
    expect(out[1]).toEqual({ role: 'assistant', content: [new ToolCallPart('c1', 'leaf_counter', { tree: 'oak' }), new ToolCallPart('c2', 'odd', { arguments: 'not json' })] });
    expect(out[2]).toEqual({ role: 'user', content: [new ToolResultPart('c1', [new TextPart('12 leaves')]), new ToolResultPart('c2', [new TextPart('error')])] });
    expect(out[3].role).toBe('assistant');
  });

  it('refuses images with a message that says what to do, instead of dropping them', () => {
    expect(() => toLmMessages([{ role: 'user', content: 'Look', images: ['aGk='] }], factory, 'vscode:copilot/gpt-4o')).toThrow(ProviderError);
    expect(() => toLmMessages([{ role: 'user', content: 'Look', images: ['aGk='] }], factory, 'vscode:copilot/gpt-4o')).toThrow(/remove the image/);
  });

  it('keeps a system message met later in the history in its place, and skips an empty one', () => {
    const out = toLmMessages(
      [
        { role: 'system', content: '  ' },
        { role: 'user', content: 'a' },
        { role: 'system', content: 'Summary of earlier turns' },
      ],
      factory,
      'm',
    );
    expect(out).toHaveLength(2);
    expect((out[1].content[0] as TextPart).value).toContain('Summary of earlier turns');
  });
});

describe('toLmTools', () => {
  it('maps function definitions to LanguageModelChatTool shapes', () => {
    expect(toLmTools([{ type: 'function', function: { name: 'read_file', description: 'Reads', parameters: { type: 'object' } } }, { type: 'function', function: { name: 'x' } }])).toEqual([
      { name: 'read_file', description: 'Reads', inputSchema: { type: 'object' } },
      { name: 'x', description: '' },
    ]);
    expect(toLmTools(undefined)).toEqual([]);
  });
});
