/**
 * GitHub Copilot's prompt files (`.github/prompts/*.prompt.md`): optional front matter (`description`,
 * `name`, `mode`/`agent`, `model`, `tools`, `argument-hint`), a Markdown body with `${input:name}`,
 * `${input:name:placeholder}` and the editor's `${selection}`, `${file}`…, and references to workspace
 * files as `#file:path` (from the workspace root) or Markdown links (from the prompt file's folder).
 */
import { posix as posixPath } from 'node:path';
import type { PromptDiagnostic } from '../../libraryFiles/fileTypes';
import type { EditorVariable, ForeignFileInput, ForeignFileRef, ForeignParam, ForeignParseResult } from './foreignTypes';
import { addParam, FieldReader, isFileLink, positionIn, readFrontMatter, SegmentBuilder, workspacePath } from './frontMatterFields';

const KNOWN_FIELDS = ['description', 'name', 'mode', 'agent', 'model', 'tools', 'argument-hint'];

/** Copilot's editor variables, filled from the active editor at send time. */
export const COPILOT_EDITOR_VARIABLES: readonly EditorVariable[] = [
  'selection',
  'selectedText',
  'file',
  'fileBasename',
  'fileBasenameNoExtension',
  'fileDirname',
  'workspaceFolder',
  'workspaceFolderBasename',
];

// `${...}`, `#file:path`, `[text](target)` (not an image `![..](..)`).
const TOKEN = /\$\{([^}\n]*)\}|#file:([^\s)\]>]+)|(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)/g;

/** Parses a Copilot prompt file. */
export function parseCopilotPrompt(input: ForeignFileInput, baseName: string): ForeignParseResult {
  const fm = readFrontMatter(input.path, input.text);
  const fields = new FieldReader(input.path, fm);
  fields.unknownKeys(KNOWN_FIELDS, 'Copilot prompt');
  const description = fields.string('description');
  const requestedName = fields.string('name')?.trim() || baseName;
  fields.string('mode');
  fields.string('agent');
  fields.string('argument-hint');
  const model = fields.string('model')?.trim() || undefined;
  const tools = fields.names('tools', false);
  const diagnostics: PromptDiagnostic[] = fm.diagnostics;
  const params: ForeignParam[] = [];
  const attachments: ForeignFileRef[] = [];
  const segments = new SegmentBuilder();
  const promptDir = posixPath.dirname(input.path);
  const body = fm.body;
  let last = 0;
  for (const m of body.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    segments.text(body.slice(last, at));
    last = at + m[0].length;
    const pos = positionIn(body, at, fm.bodyLine);
    if (m[1] !== undefined) {
      const inner = m[1].trim();
      const asked = /^input:([A-Za-z_][\w-]*)(?::([\s\S]*))?$/.exec(inner);
      if (asked) {
        addParam(params, { name: asked[1], required: true, ...(asked[2]?.trim() ? { description: asked[2].trim() } : {}) });
        segments.add({ kind: 'param', name: asked[1] });
      } else if ((COPILOT_EDITOR_VARIABLES as readonly string[]).includes(inner)) {
        segments.add({ kind: 'editor', variable: inner as EditorVariable });
      } else {
        diagnostics.push({
          file: input.path,
          ...pos,
          severity: 'warning',
          message: `unknown variable \${${inner}}: it is sent as written (known: \${input:name}, \${input:name:placeholder}, ${COPILOT_EDITOR_VARIABLES.map((v) => `\${${v}}`).join(', ')})`,
        });
        segments.text(m[0]);
      }
      continue;
    }
    segments.text(m[0]);
    if (m[2] !== undefined) {
      // A reference that ends a sentence: the full stop is not part of the path.
      const written = m[2].replace(/[.,;:!?]+$/, '');
      addRef(written, '', `#file:${written}`, pos);
    } else if (m[3] !== '!' && m[5] !== undefined && isFileLink(m[5])) {
      const target = m[5].replace(/[#?].*$/, '');
      if (target) addRef(target, promptDir, m[5], pos);
    }
  }
  segments.text(body.slice(last));

  function addRef(written: string, fromDir: string, shown: string, pos: { line: number; column: number }): void {
    const path = workspacePath(written, fromDir);
    if (path === undefined) {
      diagnostics.push({ file: input.path, ...pos, severity: 'error', message: `${shown} leaves the workspace: only files inside it can be attached` });
    } else if (!attachments.some((a) => a.path === path)) {
      attachments.push({ path, written: shown, ...pos });
    }
  }

  return {
    prompt: {
      requestedName,
      source: 'copilot',
      label: 'Copilot',
      path: input.path,
      ...(description ? { description } : {}),
      params,
      ...(model ? { model } : {}),
      ...(tools ? { tools } : {}),
      segments: segments.build(),
      attachments,
      inlineFiles: [],
    },
    diagnostics,
  };
}
