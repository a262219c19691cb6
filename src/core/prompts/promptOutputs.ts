/**
 * A prompt's structured answer (`output:` in its front matter) made ready: the schema read from its
 * `.schema.json` file when it names one (through the same link checks as prompt files, so never from
 * outside the prompts folder), then compiled with Ajv, so a broken schema is a problem at the `output:`
 * line instead of a failure when the prompt is sent.
 */
import * as nodePath from 'node:path';
import type { WorkspaceFiles } from '../files';
import { outputSchemaHash, outputSchemaProblem } from '../structured/outputSchema';
import type { PromptTemplate } from './libraryTypes';
import type { PromptDiagnostic } from '../libraryFiles/fileTypes';
import { promptReadPath } from '../libraryFiles/promptPaths';
import type { PromptOutput } from '../promptContracts';

/** What reading one prompt's `output:` gave: the output, or the problem at its `output:` line. */
export type ResolvedOutput = { output: PromptOutput } | { problem: PromptDiagnostic } | undefined;

/** Files ending in this are schemas for prompts' `output:`, not prompts. */
export const SCHEMA_FILE_SUFFIX = '.schema.json';

/** Reads and checks `prompt`'s `output:`; `undefined` when it has none. */
export async function resolvePromptOutput(files: WorkspaceFiles, promptDir: string, realRoot: string | undefined, prompt: PromptTemplate): Promise<ResolvedOutput> {
  const spec = prompt.outputSpec;
  if (!spec) return undefined;
  const problem = (message: string): ResolvedOutput => ({ problem: { file: prompt.path, line: spec.line, column: spec.column, severity: 'error', message } });
  let schema: unknown = spec.schema;
  if (spec.file !== undefined) {
    const abs = nodePath.join(promptDir, ...spec.file.split('/'));
    const missing = problem(`output schema file "${spec.file}" was not found: create it beside the prompt, or fix the path`);
    if (!(await files.stat(abs).catch(() => undefined))) return missing;
    const where = await promptReadPath(files, promptDir, realRoot, abs);
    if ('skip' in where) return problem(`output schema file "${spec.file}" is a folder, not a file`);
    if ('refused' in where) return problem(`output schema file "${spec.file}": ${where.refused}`);
    let text: string;
    try {
      text = new TextDecoder('utf-8').decode(await files.readFile(where.path));
    } catch (err) {
      return problem(`output schema file "${spec.file}" could not be read: ${(err as Error).message}`);
    }
    try {
      schema = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (err) {
      return problem(`output schema file "${spec.file}" is not valid JSON: ${(err as Error).message}`);
    }
  }
  const invalid = await outputSchemaProblem(schema);
  if (invalid) return problem(spec.file === undefined ? invalid : `${invalid.replace(/^The output schema/, `The output schema in "${spec.file}"`)}`);
  const checked = schema as Record<string, unknown>;
  const output: PromptOutput = { schema: checked, schemaHash: outputSchemaHash(checked) };
  if (spec.retries !== undefined) output.retries = spec.retries;
  if (spec.file !== undefined) output.schemaFile = spec.file;
  return { output };
}
