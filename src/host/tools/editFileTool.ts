/**
 * `edit_file`: changes part of a workspace file by search/replace edits (see `applySearchReplace`).
 * The change is computed first, without writing (`prepareEditFile`, which the approval card shows as a
 * diff), and computed again when the call runs, from the file's text at that moment, so a file changed
 * in between is edited as it is now or the call fails with what to do.
 */
import { defineTool, InvalidArgumentError, proposeEdit, type SearchReplaceEdit } from '../../core/index';
import { currentText, previewOf, writeChange, type EditToolEnv, type PreparedFileChange } from './fileChanges';
import type { OfferedTool } from './offeredTool';
import { MAX_READ_BYTES, outsidePath } from './workspaceAccess';
import { checkWriteTarget, writeVerdict } from './writeAccess';

/** What the model passes to `edit_file`. */
export interface EditFileInput {
  path: string;
  edits: SearchReplaceEdit[];
}

/** The change an `edit_file` call would make now, without writing; throws what the call would fail with. */
export async function prepareEditFile(env: EditToolEnv, input: EditFileInput): Promise<PreparedFileChange> {
  const target = await checkWriteTarget(env, input.path);
  const before = await currentText(env, target, env.maxReadBytes ?? MAX_READ_BYTES);
  if (before === undefined) {
    throw new InvalidArgumentError(`No file "${target.shown}". Check the path (list_files finds files), or make a new file with create_file.`);
  }
  return { ...proposeEdit(before, input.edits, target.shown), target };
}

/** The `edit_file` tool over `env`. */
export function editFileTool(env: EditToolEnv): OfferedTool {
  const tool = defineTool<EditFileInput>({
    name: 'edit_file',
    description:
      'Change part of a text file of the workspace with search/replace edits. Each edit has `search`, text copied exactly from the file (with its indentation), and `replace`, what takes its place. ' +
      'The search text must match one place only: include a few unchanged lines around the change to make it unique, but not much more. Edits apply in order, each to the result of the one before. ' +
      'Read the file first (read_file): a search text that is not in the file fails the call. To delete lines, replace them with an empty string; to add lines, search for the lines next to where they go and repeat them in replace with the new ones. ' +
      'To make a new file, or replace a whole file, use create_file. The user reviews the diff before it is written; if they deny it, the file stays as it was.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the workspace folder (or absolute).' },
        edits: {
          type: 'array',
          minItems: 1,
          description: 'The changes, applied in order.',
          items: {
            type: 'object',
            properties: {
              search: { type: 'string', minLength: 1, description: 'Text copied exactly from the file, matching one place only.' },
              replace: { type: 'string', description: 'The text that takes its place (empty to delete it).' },
            },
            required: ['search', 'replace'],
            additionalProperties: false,
          },
        },
      },
      required: ['path', 'edits'],
      additionalProperties: false,
    },
    readOnly: false,
    async run(input, ctx) {
      const change = await prepareEditFile(env, input);
      ctx.signal.throwIfAborted();
      const { target, diff } = change;
      if (change.after === change.before) return `No change: the edits leave ${target.shown} as it was (each replace text equals what it replaces). Nothing was written.`;
      const count = input.edits.length;
      const summary = `Edited ${target.shown}${target.outside ? ' (outside the workspace)' : ''}: ${count === 1 ? 'the edit was' : `all ${count} edits were`} applied, +${diff.added} -${diff.removed} lines.`;
      const notes = change.applied
        .filter((a) => a.match === 'whitespace')
        .map(
          (a) =>
            `${count === 1 ? 'The edit' : `Edit ${a.edit}`} did not match exactly; it matched ignoring whitespace${a.reindented ? ', and its replacement was re-indented to fit the file' : ''} (now lines ${a.startLine}-${Math.max(a.startLine, a.endLine)}). Check the diff below.`,
        );
      return writeChange(env, change, summary, { notes });
    },
  });
  return {
    tool,
    source: 'builtin',
    displayName: tool.name,
    outsideWorkspace: (input) => outsidePath(env.folders(), input.path),
    checkCall: (input) => writeVerdict(env, input.path),
    previewChange: async (input) => previewOf(await prepareEditFile(env, input as unknown as EditFileInput)),
  };
}
