/**
 * `create_file`: writes a new file, or with `overwrite` replaces a whole file's content. As with
 * `edit_file`, the change is computed without writing first (`prepareCreateFile`, shown as a diff for
 * approval) and again when the call runs; a file that appeared in between is not overwritten.
 */
import { defineTool, InvalidArgumentError, proposeContent } from '../../core/index';
import { currentText, previewOf, writeChange, type EditToolEnv, type PreparedFileChange } from './fileChanges';
import type { OfferedTool } from './offeredTool';
import { MAX_READ_BYTES, outsidePath } from './workspaceAccess';
import { checkWriteTarget, writeVerdict } from './writeAccess';

/** What the model passes to `create_file`. */
export interface CreateFileInput {
  path: string;
  content: string;
  overwrite?: boolean;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** The change a `create_file` call would make now, without writing; throws what the call would fail with. */
export async function prepareCreateFile(env: EditToolEnv, input: CreateFileInput): Promise<PreparedFileChange> {
  const target = await checkWriteTarget(env, input.path);
  const before = await currentText(env, target, env.maxReadBytes ?? MAX_READ_BYTES);
  if (before !== undefined && !input.overwrite) {
    throw new InvalidArgumentError(
      `"${target.shown}" already exists (${lineCount(before)} lines). To change part of it use edit_file; to replace all of its content, call create_file again with overwrite: true.`,
    );
  }
  return { ...proposeContent(before, input.content, target.shown), target };
}

/** The `create_file` tool over `env`. */
export function createFileTool(env: EditToolEnv): OfferedTool {
  const tool = defineTool<CreateFileInput>({
    name: 'create_file',
    description:
      'Create a new text file in the workspace with the given content; missing folders are created. ' +
      'If the file exists the call fails, unless `overwrite` is true, which replaces its whole content (to change part of a file, use edit_file instead). ' +
      'The user reviews the new content before it is written; if they deny it, nothing is written.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the workspace folder (or absolute).' },
        content: { type: 'string', description: 'The whole content of the file.' },
        overwrite: { type: 'boolean', default: false, description: 'Replace the content of an existing file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    readOnly: false,
    async run(input, ctx) {
      const change = await prepareCreateFile(env, input);
      ctx.signal.throwIfAborted();
      const { target, diff } = change;
      const where = target.outside ? ' (outside the workspace)' : '';
      if (change.before === undefined) {
        const lines = lineCount(change.after);
        return writeChange(env, change, `Created ${target.shown} (${lines} line${lines === 1 ? '' : 's'}${target.outside ? ', outside the workspace' : ''}).`, { showDiff: false });
      }
      if (change.after === change.before) return `No change: ${target.shown} already has this content. Nothing was written.`;
      return writeChange(env, change, `Replaced the content of ${target.shown}${where}: +${diff.added} -${diff.removed} lines.`);
    },
  });
  return {
    tool,
    source: 'builtin',
    displayName: tool.name,
    outsideWorkspace: (input) => outsidePath(env.folders(), input.path),
    checkCall: (input) => writeVerdict(env, input.path),
    previewChange: async (input) => previewOf(await prepareCreateFile(env, input as unknown as CreateFileInput)),
  };
}
