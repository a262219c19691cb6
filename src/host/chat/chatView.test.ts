import { describe, expect, it } from 'vitest';
import type { ConversationNode, Role } from '../../core/index';
import { ConversationTree } from '../../core/index';
import { buildChatState, chipsOf, promptSummaries, type PathSource } from './chatView';
import { ChatWindow } from './chatWindow';

/** Fixtures spell the tree as dot paths for readability; the code under test reads only parentId and position. */
function node(nodeId: string, role: Role, content: string, metadata: Record<string, unknown> = {}): ConversationNode {
  const dot = nodeId.lastIndexOf('.');
  const position = nodeId === '' ? 0 : Number(nodeId.slice(dot + 1));
  return { nodeId, parentId: nodeId === '' ? null : dot < 0 ? '' : nodeId.slice(0, dot), position, message: { role, content }, timestamp: '2026-01-01T00:00:00Z', metadata };
}

/** A `PathSource` over a list of nodes, as `ConversationManager` gives one (an empty root left out). */
function pathSourceOf(nodes: readonly ConversationNode[], currentNodeId: string): PathSource {
  const tree = new ConversationTree(nodes);
  const current = tree.has(currentNodeId) ? currentNodeId : '';
  return {
    pathIds: tree
      .path(current)
      .filter((n) => !(n.parentId === null && n.message.content === ''))
      .map((n) => n.nodeId),
    node: (id) => tree.get(id),
    siblingIds: (id) => {
      const parentId = tree.get(id).parentId;
      return parentId === null ? [id] : tree.children(parentId).map((n) => n.nodeId);
    },
  };
}

const base = { conversationId: 'c', title: 'T', totalCostUsd: 0.01, branchCostUsd: 0.01, model: 'm', provider: 'ollama', busy: false, restricted: false };

/** The views a fresh webview gets for the path to `currentNodeId`. */
function shown(nodes: ConversationNode[], currentNodeId: string) {
  const state = buildChatState({ ...base, currentNodeId, path: pathSourceOf(nodes, currentNodeId) }, new ChatWindow());
  expect(state.views.map((v) => v.nodeId)).toEqual(state.ids);
  return state.views;
}

describe('buildChatState', () => {
  const nodes = [
    node('', 'system', ''),
    node('0', 'user', 'Why?\n\nSelection from a.ts (lines 1-2):\n```ts\nx\n```', { displayText: 'Why?', attachments: [{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2, text: 'x' }] }),
    node('0.0', 'assistant', 'Because', { model: 'm1', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 }, costUsd: 0.002 }),
    node('0.1', 'assistant', 'Partial', { interrupted: true, error: 'Stream broke' }),
    node('0.2', 'assistant', 'Third'),
  ];

  it('shows the path to the current node without the empty root, with sibling positions', () => {
    const path = shown(nodes, '0.1');
    expect(path.map((m) => m.nodeId)).toEqual(['0', '0.1']);
    expect(path[1].siblings).toEqual({ index: 2, count: 3, prevNodeId: '0.0', nextNodeId: '0.2' });
    expect(path[0].siblings).toEqual({ index: 1, count: 1, prevNodeId: undefined, nextNodeId: undefined });
    expect(path[1]).toMatchObject({ interrupted: true, error: 'Stream broke' });
  });

  it('marks the unanswered question at the end with its failure, resends it when that changes, and carries the branch point', () => {
    const window = new ChatWindow();
    const question = [node('', 'system', ''), node('0', 'user', 'Hello?')];
    const input = { ...base, currentNodeId: '0', path: pathSourceOf(question, '0') };
    const failure = { message: 'The server is down', kind: 'connection', retryable: true };
    expect(buildChatState({ ...input, unanswered: { nodeId: '0' } }, window).views[0].unanswered).toEqual({});
    const failed = buildChatState({ ...input, unanswered: { nodeId: '0', error: failure }, branchPoint: { nodeId: '0', preview: 'Hello?', replaces: true, text: 'Hello?' } }, window);
    expect(failed.views.map((v) => v.unanswered)).toEqual([{ error: failure }]);
    expect(failed.branchPoint).toEqual({ nodeId: '0', preview: 'Hello?', replaces: true, text: 'Hello?' });
    const answered = buildChatState(input, window);
    expect(answered.views.map((v) => v.unanswered)).toEqual([undefined]);
    expect(answered.branchPoint).toBeUndefined();
  });

  it('shows the typed text and attachments (without their text), and answer details', () => {
    const path = shown(nodes, '0.0');
    expect(path[0].content).toBe('Why?');
    expect(path[0].attachments).toEqual([{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2, language: undefined }]);
    expect(path[1]).toMatchObject({ model: 'm1', costUsd: 0.002, usage: { totalTokens: 5 } });
    expect(path[1].siblings.index).toBe(1);
  });

  it("names the system prompt an answer was made with, and its version; none for answers without one", () => {
    const ref = { name: 'terse', path: 'system/terse.md', sha256: 'a'.repeat(64), gitBlobId: 'b'.repeat(40) };
    const withPrompt = [...nodes.slice(0, 2), node('0.0', 'assistant', 'Short', { model: 'm1', systemPrompt: ref })];
    expect(shown(withPrompt, '0.0')[1].systemPrompt).toEqual({ name: 'terse', path: 'system/terse.md', version: 'b'.repeat(40) });
    expect(shown(nodes, '0.0')[1]).not.toHaveProperty('systemPrompt');
  });

  it('shows a bookmark and a trimmed note, and neither when they are unset, blank or of the wrong shape', () => {
    const marked = [
      node('', 'system', ''),
      node('0', 'user', 'Q', { bookmarked: true, note: '  read this again  ' }),
      node('0.0', 'assistant', 'A', { bookmarked: 'yes', note: '   ' }),
    ];
    const path = shown(marked, '0.0');
    expect(path[0]).toMatchObject({ bookmarked: true, note: 'read this again' });
    expect(path[1].bookmarked).toBeUndefined();
    expect(path[1].note).toBeUndefined();
  });

  it('falls back to the root for an unknown current node', () => {
    expect(shown(nodes, '9.9')).toEqual([]);
  });

  it('turns stored retrievals into one chip per file range', () => {
    const chips = chipsOf(
      node('1', 'user', 'q', {
        ragMetadata: {
          CONTEXT: { adapter: 'workspace', results: [{ content: 'a', score: 2, path: 'src/a.ts', startLine: 1, endLine: 9 }, { content: 'a', score: 2, path: 'src/a.ts', startLine: 1, endLine: 9 }, { content: 'no path', score: 1 }] },
        },
      }),
    );
    expect(chips).toEqual([{ path: 'src/a.ts', startLine: 1, endLine: 9, score: 2, source: 'workspace' }]);
  });

  it('flags a chip whose file the rules leave out but the user picked by hand', () => {
    const chips = chipsOf(
      node('1', 'user', 'q', {
        ragMetadata: {
          FILES: { adapter: 'files', results: [{ content: 'x', score: 1, path: 'dist/a.js', metadata: { ignored: true } }, { content: 'y', score: 1, path: 'src/b.ts', metadata: { ignored: false } }] },
        },
      }),
    );
    expect(chips).toEqual([
      { path: 'dist/a.js', startLine: undefined, endLine: undefined, score: 1, source: 'files', ignored: true },
      { path: 'src/b.ts', startLine: undefined, endLine: undefined, score: 1, source: 'files' },
    ]);
  });
  it('shows the instruction chips of a request whose answer came after an automatic compaction', () => {
    const refs = [{ path: 'AGENTS.md', kind: 'agents', gitBlobId: 'b1' }];
    const compacted = [
      node('', 'system', ''),
      node('0', 'user', 'And now?'),
      node('0.0', 'system', 'Summary', { compaction: { coveredCount: 2, tokensBefore: 600, tokensAfter: 300, method: 'llm', trigger: 'auto', firstKeptNodeId: '0' } }),
      node('0.0.0', 'assistant', 'Echo', { instructions: refs }),
    ];
    const state = buildChatState({ ...base, currentNodeId: '0.0.0', path: pathSourceOf(compacted, '0.0.0'), instructions: { excluded: [] } }, new ChatWindow());
    const question = state.views.find((v) => v.nodeId === '0');
    expect(question?.instructions?.map((c) => c.path)).toEqual(['AGENTS.md']);
  });

  it('offers Restore Files to Here on every message once any node changed a file, pointing past an answer\'s tool results', () => {
    const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
    const tooled = [
      node('', 'system', ''),
      node('0', 'user', 'Fix it'),
      { ...node('0.0', 'assistant', ''), message: { role: 'assistant' as const, content: '', toolCalls: [call('c1', 'edit_file'), call('c2', 'read_file')] } },
      { ...node('0.0.0', 'tool', 'edited'), message: { role: 'tool' as const, content: 'edited', toolCallId: 'c1', name: 'edit_file' } },
      { ...node('0.0.0.0', 'tool', 'read'), message: { role: 'tool' as const, content: 'read', toolCallId: 'c2', name: 'read_file' } },
      node('0.0.0.0.0', 'assistant', 'Done'),
    ];
    const current = '0.0.0.0.0';
    const change = { path: 'a.ts', kind: 'modified' as const, before: { hash: 'h0', size: 1 }, after: { hash: 'h1', size: 1 }, linesAdded: 1, linesRemoved: 1 };
    const build = (fileChanges: Record<string, (typeof change)[]>) =>
      buildChatState({ ...base, currentNodeId: current, path: pathSourceOf(tooled, current), fileChanges }, new ChatWindow()).views;
    const views = build({ '0.0.0': [change] });
    const byId = Object.fromEntries(views.map((v) => [v.nodeId, v]));
    expect(byId['0'].restoreFilesNodeId).toBe('0');
    // The answer that called the tools restores to after its last tool result; its chips name the change's node.
    expect(byId['0.0'].restoreFilesNodeId).toBe('0.0.0.0');
    expect(byId['0.0'].fileChanges).toEqual({ files: [{ nodeId: '0.0.0', path: 'a.ts', kind: 'modified', added: 1, removed: 1 }], restoreNodeId: '0.0.0' });
    expect(byId['0.0.0.0.0'].restoreFilesNodeId).toBe('0.0.0.0.0');
    expect(byId['0.0.0'].restoreFilesNodeId).toBeUndefined();
    // No file changed anywhere: no message offers it.
    expect(build({}).some((v) => v.restoreFilesNodeId !== undefined)).toBe(false);
  });
});

describe('promptSummaries', () => {
  it('offers the user and few-shot prompts only, with each default as text for the form', () => {
    const summaries = promptSummaries([
      { name: 'sys', kind: 'system', path: 'system/sys.md', params: [] },
      { name: 'rules', kind: 'partial', path: 'partials/rules.md', params: [] },
      { name: 'naming', kind: 'messages', path: 'messages/naming.yaml', description: 'Names', params: [{ name: 'language', default: 'go' }] },
      {
        name: 'review',
        kind: 'user',
        path: 'user/review.md',
        description: 'Review code',
        params: [
          { name: 'focus', default: 'bugs', required: true },
          { name: 'limits', default: { lines: 50 } },
          { name: 'style' },
        ],
      },
    ]);
    expect(summaries).toEqual([
      { name: 'naming', kind: 'messages', description: 'Names', params: [{ name: 'language', required: false, default: 'go', description: undefined }] },
      {
        name: 'review',
        description: 'Review code',
        params: [
          { name: 'focus', required: true, default: 'bugs', description: undefined },
          { name: 'limits', required: false, default: '{"lines":50}', description: undefined },
          { name: 'style', required: false, default: undefined, description: undefined },
        ],
      },
    ]);
  });
});
