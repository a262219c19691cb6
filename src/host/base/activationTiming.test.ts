import { describe, expect, it } from 'vitest';
import { ActivationClock } from './activationTiming';

describe('ActivationClock', () => {
  it('records each milestone once and reports the first render to its listener', () => {
    const clock = new ActivationClock(0);
    const seen: number[] = [];
    clock.whenRendered((t) => seen.push(t.toFirstRenderMs ?? -1));
    clock.activated();
    clock.treeRequested();
    const requested = clock.snapshot().firstTreeRequest;
    clock.treeRendered();
    const first = clock.snapshot();
    clock.treeRequested();
    clock.treeRendered();
    expect(clock.snapshot()).toEqual(first);
    expect(first.firstTreeRequest).toBe(requested);
    expect(first.toFirstRenderMs).toBe(first.firstTreeRender);
    expect(first.activateMs).toBeGreaterThanOrEqual(0);
    expect(seen).toEqual([first.toFirstRenderMs]);
  });
});
