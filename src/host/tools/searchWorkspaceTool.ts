/**
 * `search_workspace`: the workspace index retrieval uses (BM25 over chunks of every allowed text file),
 * asked with the model's words; each hit gives its path, line range, score and the start of its text.
 */
import { defineTool, InvalidOperationError } from '../../core/index';
import type { OfferedTool } from './offeredTool';
import type { WorkspaceToolEnv } from './workspaceAccess';

/** Hits returned when the model does not say. */
export const SEARCH_DEFAULT_RESULTS = 8;
/** Most hits one call may ask for. */
export const SEARCH_MAX_RESULTS = 30;
/** Most lines and characters of one hit's snippet. */
const SNIPPET_LINES = 30;
const SNIPPET_CHARS = 2000;

interface SearchInput {
  query: string;
  maxResults?: number;
}

/** The start of a hit's text: at most `SNIPPET_LINES` lines and `SNIPPET_CHARS` characters, with what to read for the rest. */
export function snippet(content: string, path: string, startLine: number, endLine: number): string {
  const kept = content.split('\n').slice(0, SNIPPET_LINES).join('\n');
  const text = kept.slice(0, SNIPPET_CHARS);
  if (text.length === content.length) return text;
  // A line cut in the middle is read again whole.
  const shown = text.split('\n').length;
  const from = startLine + (text.length < kept.length ? shown - 1 : shown);
  return `${text}\n[… the chunk goes on: read_file ${path} with startLine ${from} and endLine ${endLine}]`;
}

/** The `search_workspace` tool over `env`. */
export function searchWorkspaceTool(env: WorkspaceToolEnv): OfferedTool {
  const tool = defineTool<SearchInput>({
    name: 'search_workspace',
    description:
      'Search the workspace\'s code and text by meaning-bearing words (a ranked keyword search, BM25, over chunks of every indexed file), e.g. "conversation tree branch delete". ' +
      'Returns the best chunks, best first, each with its path, line range, score and the start of its text; read more with read_file. ' +
      'Use grep instead for an exact string or a regular expression. Ignored, secret, binary and very large files are not indexed.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'Words to look for: names, identifiers, terms.' },
        maxResults: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_RESULTS, default: SEARCH_DEFAULT_RESULTS, description: 'Most hits to return.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    readOnly: true,
    async run(input, ctx) {
      const hits = await env.searchIndex(input.query, input.maxResults ?? SEARCH_DEFAULT_RESULTS);
      ctx.signal.throwIfAborted();
      if (hits === undefined) {
        throw new InvalidOperationError('The workspace index is off here (no folder is open, or the workspace is in Restricted Mode); use grep or list_files and read_file instead.');
      }
      if (hits.length === 0) {
        return `Nothing in the index matches "${input.query}". Try other words (identifiers, terms the code uses), or grep for an exact string.`;
      }
      const blocks = hits.map((h, i) => {
        const where = h.path ?? '(unknown file)';
        const start = h.startLine ?? 1;
        const end = h.endLine ?? start;
        return `${i + 1}. ${where}:${start}-${end} (score ${h.score.toFixed(2)})\n${snippet(h.content, where, start, end)}`;
      });
      return `${hits.length} result${hits.length === 1 ? '' : 's'} for "${input.query}", best first:\n\n${blocks.join('\n\n')}`;
    },
  });
  return { tool, source: 'builtin', displayName: tool.name };
}
