import { describe, expect, it } from 'vitest';
import { newPromptTemplate, validatePromptName } from './promptTemplate';

describe('new prompt', () => {
  it('accepts file-safe names only', () => {
    expect(validatePromptName('review-code_2')).toBeUndefined();
    expect(validatePromptName('')).toMatch(/name/);
    expect(validatePromptName('../x')).toMatch(/letters/);
    expect(validatePromptName('a b')).toMatch(/letters/);
  });
  it('writes front matter with a required param, a default and a workspace retrieval', () => {
    const text = newPromptTemplate();
    expect(text.startsWith('---\n')).toBe(true);
    expect(text).toContain('required: true');
    expect(text).toContain('adapter: workspace');
    expect(text).toContain('{{CONTEXT}}');
  });
});
