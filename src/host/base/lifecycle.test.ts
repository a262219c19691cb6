import { describe, expect, it } from 'vitest';
import { Disposable, toDisposable } from './lifecycle';

/** A subclass that exposes `_register` so the tests can hand it disposables. */
class Owner extends Disposable {
  add<T extends { dispose(): void }>(d: T): T {
    return this._register(d);
  }
}

function recorder(log: string[], name: string): { dispose(): void } {
  return { dispose: () => log.push(name) };
}

describe('Disposable', () => {
  it('disposes what was registered in reverse order', () => {
    const log: string[] = [];
    const owner = new Owner();
    owner.add(recorder(log, 'a'));
    owner.add(recorder(log, 'b'));
    owner.add(recorder(log, 'c'));
    expect(log).toEqual([]);
    owner.dispose();
    expect(log).toEqual(['c', 'b', 'a']);
  });

  it('disposes each registered object exactly once, however often dispose() is called', () => {
    const log: string[] = [];
    const owner = new Owner();
    owner.add(recorder(log, 'a'));
    expect(owner.isDisposed).toBe(false);
    owner.dispose();
    owner.dispose();
    expect(owner.isDisposed).toBe(true);
    expect(log).toEqual(['a']);
  });

  it('returns what it registers, so a field can be declared and registered in one line', () => {
    const owner = new Owner();
    const d = recorder([], 'x');
    expect(owner.add(d)).toBe(d);
  });

  it('disposes at once what is registered after dispose()', () => {
    const log: string[] = [];
    const owner = new Owner();
    owner.dispose();
    owner.add(recorder(log, 'late'));
    expect(log).toEqual(['late']);
    owner.dispose();
    expect(log).toEqual(['late']);
  });

  it('refuses to register itself', () => {
    const owner = new Owner();
    expect(() => owner.add(owner)).toThrow(/itself/);
  });

  it('disposes the rest when one throws, then rethrows that error', () => {
    const log: string[] = [];
    const owner = new Owner();
    owner.add(recorder(log, 'a'));
    owner.add({
      dispose: () => {
        throw new Error('broken');
      },
    });
    owner.add(recorder(log, 'c'));
    expect(() => owner.dispose()).toThrow('broken');
    expect(log).toEqual(['c', 'a']);
    expect(owner.isDisposed).toBe(true);
  });

  it('gathers several failures into one AggregateError', () => {
    const owner = new Owner();
    for (const message of ['one', 'two']) {
      owner.add({
        dispose: () => {
          throw new Error(message);
        },
      });
    }
    let thrown: unknown;
    try {
      owner.dispose();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AggregateError);
    expect((thrown as AggregateError).errors.map((e: Error) => e.message)).toEqual(['two', 'one']);
  });
});

describe('toDisposable', () => {
  it('calls the function on the first dispose only', () => {
    let calls = 0;
    const d = toDisposable(() => calls++);
    d.dispose();
    d.dispose();
    expect(calls).toBe(1);
  });
});
