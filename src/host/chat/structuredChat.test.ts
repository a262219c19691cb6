import { describe, expect, it } from 'vitest';
import { OutputValidationError, ProviderError, type ConversationNode, type Role } from '../../core/index';
import { isCorrectionTurn, structuredFailureView, structuredRequestFor, structuredView } from './structuredChat';

const schema = { type: 'object', properties: { verdict: { enum: ['approve', 'reject'] } }, required: ['verdict'] };
const promptOutput = { schema, schemaHash: 'h1', retries: 1 };
const problems = [{ path: '$.verdict', message: 'must be equal to one of the allowed values' }];

function node(nodeId: string, parentId: string | null, role: Role, metadata: Record<string, unknown> = {}): ConversationNode {
  return { nodeId, parentId, position: 0, message: { role, content: nodeId }, timestamp: '2026-01-01T00:00:00Z', metadata };
}

/** question ─ invalid answer ─ correction ─ accepted answer, as a structured run stores them. */
const nodes = new Map(
  [
    node('root', null, 'system'),
    node('q', 'root', 'user', { promptOutput }),
    node('a1', 'q', 'assistant', { structured: { kind: 'answer', attempt: 1, attempts: 2, schemaHash: 'h1', problems } }),
    node('c1', 'a1', 'user', { structured: { kind: 'correction', attempt: 1, attempts: 2, schemaHash: 'h1', problems } }),
    node('a2', 'c1', 'assistant', { structured: { kind: 'answer', attempt: 2, attempts: 2, schemaHash: 'h1' }, structuredOutput: { value: { verdict: 'approve' }, schemaHash: 'h1' } }),
    node('plain', 'root', 'user'),
    node('followUp', 'a2', 'user'),
  ].map((n) => [n.nodeId, n]),
);
const getNode = (id: string) => {
  const found = nodes.get(id);
  if (!found) throw new Error(`no node ${id}`);
  return found;
};

describe('structuredRequestFor', () => {
  it('passes the schema and retries of a prompt message with output:', () => {
    expect(structuredRequestFor(getNode, 'q')).toEqual({ outputSchema: schema, retries: 1, questionId: 'q' });
  });

  it('finds the question of a correction turn (Regenerate or Retry of a later attempt)', () => {
    expect(structuredRequestFor(getNode, 'c1')).toEqual({ outputSchema: schema, retries: 1, questionId: 'q' });
  });

  it('leaves other messages, and follow-ups after a structured answer, to answer as usual', () => {
    expect(structuredRequestFor(getNode, 'plain')).toBeUndefined();
    expect(structuredRequestFor(getNode, 'followUp')).toBeUndefined();
  });

  it('leaves retries out when the prompt does not set them (the manager default applies)', () => {
    const own = node('q2', 'root', 'user', { promptOutput: { schema, schemaHash: 'h1' } });
    expect(structuredRequestFor(() => own, 'q2')).toEqual({ outputSchema: schema, questionId: 'q2' });
  });
});

describe('structuredView', () => {
  it('shows an accepted answer with its value', () => {
    expect(structuredView(getNode('a2').metadata)).toEqual({ kind: 'answer', attempt: 2, attempts: 2, accepted: true, value: { verdict: 'approve' } });
  });

  it('shows an invalid answer and a correction turn with their problems, not accepted', () => {
    expect(structuredView(getNode('a1').metadata)).toEqual({ kind: 'answer', attempt: 1, attempts: 2, problems });
    expect(structuredView(getNode('c1').metadata)).toEqual({ kind: 'correction', attempt: 1, attempts: 2, problems });
    expect(isCorrectionTurn(getNode('c1'))).toBe(true);
    expect(isCorrectionTurn(getNode('a1'))).toBe(false);
  });

  it('keeps a falsy accepted value (null, 0) and says nothing of an ordinary message', () => {
    expect(structuredView({ structuredOutput: { value: null, schemaHash: 'h' } })).toMatchObject({ accepted: true, value: null });
    expect(structuredView({})).toBeUndefined();
  });
});

describe('structuredFailureView', () => {
  it('offers Retry after a structured answer that never matched its schema, saying what was wrong', () => {
    const err = new OutputValidationError('The model\'s answer does not match the output schema (after 2 answers):\n$.verdict: must be equal to one of the allowed values', problems, '{"verdict":"maybe"}', 'a2', 2);
    expect(structuredFailureView(err)).toEqual({ message: err.message, kind: 'output', retryable: true });
    expect(structuredFailureView(err)?.message).toContain('$.verdict');
  });

  it('leaves other failures to the usual view', () => {
    expect(structuredFailureView(new ProviderError('slow down', { kind: 'rate_limit', retryable: true, provider: 'openai' }))).toBeUndefined();
    expect(structuredFailureView(new Error('boom'))).toBeUndefined();
  });
});
