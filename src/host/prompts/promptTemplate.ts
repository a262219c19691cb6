/** The sample file `Arbor: New Prompt` creates, and the rule for prompt names. Pure. */

/** `undefined` when `name` can be a prompt file name, else why not. */
export function validatePromptName(name: string): string | undefined {
  if (!name.trim()) return 'Give the prompt a name.';
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name.trim())) return 'Use letters, digits, "-" and "_" only (it becomes the file name and /name).';
  return undefined;
}

/**
 * A user prompt in Markdown with YAML front matter that shows params, a default and retrieval. Its
 * description says what it does; the name is already the file's and the `/` menu's.
 */
export function newPromptTemplate(): string {
  return `---
description: Answer a question with code found in this workspace.
params:
  question:
    description: What you want to know
    required: true
  audience:
    description: Who the answer is for
    default: a developer new to this code
rag:
  - adapter: workspace
    query: "{{question}}"
    k: 5
    placeholder: CONTEXT
    header: "Relevant code from the workspace:"
---
Answer for {{audience}}. Today is {{current_date}}.

{{#if selection}}
The code I am looking at ({{file}}, {{language}}):

\`\`\`{{language}}
{{selection}}
\`\`\`
{{/if}}

{{CONTEXT}}

Question: {{question}}
`;
}
