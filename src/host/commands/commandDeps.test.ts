import { describe, expect, it } from 'vitest';
import { targetsOf, type CommandDeps } from './commandDeps';
import type { ConversationEntry, RunEntry, TreeEntry } from '../tree/treeModel';

const conversation = (id: string): ConversationEntry => ({ kind: 'conversation', conversationId: id, label: id, description: '', tooltip: '' });
const run = (id: string, first: string): RunEntry => ({
  kind: 'run', conversationId: id, nodeIds: [first], firstNodeId: first, lastNodeId: first, role: 'user', label: first, description: '', tooltip: '',
  isCurrent: false, onCurrentPath: false, bookmarks: 0, firstBookmarked: false, children: [],
});
/** Only what `targetsOf` reads: the tree view's selection. */
const depsWith = (selection: TreeEntry[]) => ({ tree: { view: { selection } } }) as unknown as CommandDeps;

describe('targetsOf', () => {
  const a = conversation('a');
  const b = conversation('b');
  const c = conversation('c');

  it('takes the whole selection when the item the menu was opened on is part of it, items of its kind only', () => {
    expect(targetsOf(depsWith([]), b, [a, b, run('a', 'n1')])).toEqual([a, b]);
  });

  it('takes the item alone when it is outside the selection, or nothing else is selected', () => {
    expect(targetsOf(depsWith([]), c, [a, b])).toEqual([c]);
    expect(targetsOf(depsWith([]), c)).toEqual([c]);
    // A message item is told apart from the others of its conversation by its first message.
    expect(targetsOf(depsWith([]), run('a', 'n2'), [run('a', 'n1')])).toEqual([run('a', 'n2')]);
  });

  it('from the palette, the tree selection', () => {
    expect(targetsOf(depsWith([a, b]), undefined)).toEqual([a, b]);
    expect(targetsOf(depsWith([]), undefined)).toEqual([]);
  });
});
