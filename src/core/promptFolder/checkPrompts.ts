import { PromptError, PromptValidationError } from '../errors';
import type { WorkspaceFiles } from '../files';
import { nodeFiles } from '../nodeFiles';
import type { PromptDiagnostic } from '../libraryFiles/fileTypes';
import { PromptBuilder } from '../prompts/promptBuilder';
import { PromptFolderLibrary } from './promptFolderLibrary';

/** Outcome of checking a prompt folder: every problem, and how many prompts rendered. */
export interface PromptCheckReport {
  problems: PromptDiagnostic[];
  prompts: number;
  /** Flows of `flows/` that loaded (their problems are in `problems`, as the library reports them). */
  flows: number;
  rendered: number;
  errors: number;
  warnings: number;
}

/**
 * Loads a prompt folder and renders every system, user and messages prompt with its defaults and no
 * retrieval (placeholders empty), collecting load problems (flows' too) and render failures. Missing required params
 * are not problems here (a caller gives them); everything that would break a render is.
 */
export async function checkPromptFolder(dir: string, files: WorkspaceFiles = nodeFiles): Promise<PromptCheckReport> {
  const stat = await files.stat(dir);
  if (stat?.type !== 'directory') {
    const problem: PromptDiagnostic = { file: '.', line: 1, column: 1, severity: 'error', message: `${dir} is not a folder of prompts (expected system/, user/, messages/, rag/ inside)` };
    return { problems: [problem], prompts: 0, flows: 0, rendered: 0, errors: 1, warnings: 0 };
  }
  const library = await PromptFolderLibrary.open(dir, { files });
  try {
    const problems = library.diagnostics();
    const known = new Set(problems.map((d) => `${d.file}:${d.line}:${d.column}:${d.message}`));
    const builder = new PromptBuilder(library, { adapters: {} });
    const prompts = library.listPrompts().filter((p) => p.kind === 'system' || p.kind === 'user' || p.kind === 'messages');
    let rendered = 0;
    for (const p of prompts) {
      try {
        if (p.kind === 'system') await builder.renderSystemPrompt(p.name, { includeRag: false });
        else if (p.kind === 'user') await builder.renderUserPrompt(p.name, { includeRag: false });
        else await builder.renderMessagesPrompt(p.name, { includeRag: false });
        rendered++;
      } catch (err) {
        if (err instanceof PromptValidationError) {
          rendered++;
          continue;
        }
        if (!(err instanceof PromptError)) throw err;
        const d: PromptDiagnostic = {
          file: err.file ?? p.path,
          line: err.line ?? 1,
          column: err.column ?? 1,
          severity: 'error',
          message: err.message.replace(/^[^\s:]+:\d+:\d+: /, '').replace(/^[^\s:]+: /, ''),
        };
        // Load problems already explain why most renders fail; report only what is new.
        const alreadyKnown = known.has(`${d.file}:${d.line}:${d.column}:${d.message}`) || problems.some((x) => x.severity === 'error' && (x.file === p.path || x.file === d.file));
        if (!alreadyKnown) problems.push(d);
      }
    }
    const errors = problems.filter((d) => d.severity === 'error').length;
    return { problems, prompts: prompts.length, flows: library.listFlows().length, rendered, errors, warnings: problems.length - errors };
  } finally {
    library.dispose();
  }
}
