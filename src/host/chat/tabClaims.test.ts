import { describe, expect, it } from 'vitest';
import { candidateTabs, tabLabel, unclaimedTabs, type ChatTab } from './tabClaims';

const tab = (column: number, index: number, label: string, active = false): ChatTab => ({ column, index, label, active });

describe('unclaimedTabs', () => {
  it('leaves the restored tabs no held panel accounts for', () => {
    const tabs = [tab(1, 0, 'Alpha', true), tab(1, 1, 'Beta'), tab(2, 0, 'Gamma', true), tab(2, 1, 'Beta')];
    // After a reload only the shown tabs (the active one of each group) have panels.
    const held = [
      { column: 1, title: 'Alpha', visible: true },
      { column: 2, title: 'Gamma', visible: true },
    ];
    expect(unclaimedTabs(tabs, held)).toEqual([tab(1, 1, 'Beta'), tab(2, 1, 'Beta')]);
  });

  it('matches a panel only in its own group', () => {
    const tabs = [tab(1, 0, 'Same', true), tab(2, 0, 'Same', true)];
    expect(unclaimedTabs(tabs, [{ column: 2, title: 'Same', visible: true }])).toEqual([tab(1, 0, 'Same', true)]);
  });

  it('gives a shown panel the active tab of its title, so a hidden twin leaves the other one over', () => {
    const tabs = [tab(1, 0, 'Twin'), tab(1, 1, 'Twin', true), tab(1, 2, 'Other')];
    expect(unclaimedTabs(tabs, [{ column: 1, title: 'Twin', visible: true }])).toEqual([tab(1, 0, 'Twin'), tab(1, 2, 'Other')]);
    // The hidden panel listed first still does not take the active tab away from the shown one.
    const both = [
      { column: 1, title: 'Twin', visible: false },
      { column: 1, title: 'Twin', visible: true },
    ];
    expect(unclaimedTabs(tabs, both)).toEqual([tab(1, 2, 'Other')]);
  });

  it('leaves nothing when every tab has its panel, and every tab when none has', () => {
    const tabs = [tab(1, 0, 'A', true), tab(1, 1, 'B')];
    expect(unclaimedTabs(tabs, [{ column: 1, title: 'A', visible: true }, { column: 1, title: 'B', visible: false }])).toEqual([]);
    expect(unclaimedTabs(tabs, [])).toEqual(tabs);
  });
});

describe('candidateTabs', () => {
  const unclaimed = [tab(1, 1, 'Other'), tab(2, 3, 'Mine'), tab(1, 4, 'Mine')];

  it('tries the tabs with the conversation\'s label first, then the rest (a title changed elsewhere)', () => {
    expect(candidateTabs(unclaimed, 'Mine', false)).toEqual([tab(2, 3, 'Mine'), tab(1, 4, 'Mine'), tab(1, 1, 'Other')]);
  });

  it('tries only the labelled ones when asked to', () => {
    expect(candidateTabs(unclaimed, 'Mine', true)).toEqual([tab(2, 3, 'Mine'), tab(1, 4, 'Mine')]);
    expect(candidateTabs(unclaimed, 'Nobody', true)).toEqual([]);
  });
});

describe('tabLabel', () => {
  it('is the first line of the title, cut to 40 characters', () => {
    expect(tabLabel('\n  Why does   the cart\nround down?')).toBe('Why does the cart');
    const label = tabLabel('x'.repeat(80));
    expect(label).toHaveLength(40);
    expect(label.endsWith('…')).toBe(true);
  });
});
