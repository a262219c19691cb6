import { describe, expect, it } from 'vitest';
import { modelChoices, modelKey, sameModel } from './modelNames';

describe('model names', () => {
  it('lists name and name:latest as one model, keeping other tags apart', () => {
    expect(modelKey('llama3.2:latest')).toBe('llama3.2');
    expect(modelKey('llama3.2:3b')).toBe('llama3.2:3b');
    expect(modelKey(':latest')).toBe(':latest');
    expect(sameModel('llama3.2', 'llama3.2:latest')).toBe(true);
    expect(sameModel('llama3.2', 'llama3.2:3b')).toBe(false);
  });

  it('offers each model once, with the current one among them however it is spelled', () => {
    expect(modelChoices('b:latest', ['b', 'a:latest', 'a', 'c:7b'])).toEqual({ models: ['a', 'b', 'c:7b'], current: 'b' });
    expect(modelChoices('gpt-4o-mini', ['gpt-4o'])).toEqual({ models: ['gpt-4o', 'gpt-4o-mini'], current: 'gpt-4o-mini' });
  });
});
