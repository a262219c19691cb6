import { describe, expect, it } from 'vitest';
import type { ConversationNode, Role } from '../../core/index';
import { branchToMarkdown, messagesToMarkdown, pathTo } from './branchMarkdown';

/** Fixtures spell the tree as dot paths for readability; the code under test reads only parentId and position. */
function node(nodeId: string, role: Role, content: string, metadata: Record<string, unknown> = {}): ConversationNode {
  const dot = nodeId.lastIndexOf('.');
  const position = nodeId === '' ? 0 : Number(nodeId.slice(dot + 1));
  return { nodeId, parentId: nodeId === '' ? null : dot < 0 ? '' : nodeId.slice(0, dot), position, message: { role, content }, timestamp: '2026-01-01T00:00:00Z', metadata };
}

const nodes = [node('', 'system', ''), node('0', 'user', 'Q'), node('0.0', 'assistant', 'A1', { model: 'm1' }), node('0.1', 'assistant', 'A2', { model: 'm2' })];

describe('branch markdown', () => {
  it('walks root to node and skips the empty root', () => {
    expect(pathTo(nodes, '0.1').map((n) => n.nodeId)).toEqual(['', '0', '0.1']);
    expect(branchToMarkdown('T', nodes, '0.1')).toBe('# T\n\n## You\n\nQ\n\n## Assistant (m2)\n\nA2\n');
  });
  it('gives two branches that differ only where they fork', () => {
    const a = branchToMarkdown('T', nodes, '0.0').split('\n');
    const b = branchToMarkdown('T', nodes, '0.1').split('\n');
    expect(a.filter((line, i) => line !== b[i])).toEqual(['## Assistant (m1)', 'A1']);
  });
  it('keeps a non-empty system prompt', () => {
    expect(messagesToMarkdown([node('', 'system', 'Be brief')])).toBe('## System\n\nBe brief\n');
  });
});
