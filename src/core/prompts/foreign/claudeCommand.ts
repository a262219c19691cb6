/**
 * Claude Code's slash commands (`.claude/commands/**\/*.md`): optional front matter (`description`,
 * `argument-hint`, `model`, `allowed-tools`, `disable-model-invocation`), a Markdown body with
 * `$ARGUMENTS` (everything typed after the command) and `$1`, `$2`… (its words), and `@path`
 * references to workspace files. A command in a subfolder is named `folder:name`.
 */
import type { PromptDiagnostic } from '../../libraryFiles/fileTypes';
import type { ForeignFileInput, ForeignFileRef, ForeignParam, ForeignParseResult } from './foreignTypes';
import { addParam, FieldReader, positionIn, readFrontMatter, SegmentBuilder, workspacePath } from './frontMatterFields';

const KNOWN_FIELDS = ['description', 'argument-hint', 'model', 'allowed-tools', 'disable-model-invocation'];

/** The form field `$ARGUMENTS` fills. */
export const CLAUDE_ARGUMENTS_PARAM = 'arguments';

// `$ARGUMENTS`, `$1`…`$9`, `@path` after a space or line start, `!`command``.
const TOKEN = /\$ARGUMENTS\b|\$([1-9])(?![0-9])|(^|[\s(])@([^\s`'")\]]+)|!`([^`\n]+)`/g;

/**
 * Names for `$1`, `$2`… from the argument hint (`[pr-number] [priority]` or `<file> <line>`), else
 * `arg1`, `arg2`….
 */
export function positionalNames(hint: string | undefined): string[] {
  const names: string[] = [];
  for (const m of (hint ?? '').matchAll(/[[<]([^\]>]+)[\]>]/g)) {
    const name = m[1].trim().replace(/\s+/g, '-').replace(/[^\w-]/g, '');
    names.push(name && name !== CLAUDE_ARGUMENTS_PARAM && !names.includes(name) ? name : `arg${names.length + 1}`);
  }
  return names;
}

/** Parses a Claude Code command file; `baseName` is the command name its path gives (`folder:name`). */
export function parseClaudeCommand(input: ForeignFileInput, baseName: string): ForeignParseResult {
  const fm = readFrontMatter(input.path, input.text, false, ['argument-hint']);
  const fields = new FieldReader(input.path, fm);
  fields.unknownKeys(KNOWN_FIELDS, 'Claude Code command');
  const description = fields.string('description');
  const hint = fields.string('argument-hint');
  const model = fields.string('model')?.trim() || undefined;
  const tools = fields.names('allowed-tools', true);
  fields.boolean('disable-model-invocation');
  const diagnostics: PromptDiagnostic[] = fm.diagnostics;
  const params: ForeignParam[] = [];
  const attachments: ForeignFileRef[] = [];
  const names = positionalNames(hint);
  const segments = new SegmentBuilder();
  const body = fm.body;
  let last = 0;
  for (const m of body.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    segments.text(body.slice(last, at));
    last = at + m[0].length;
    if (m[0] === '$ARGUMENTS') {
      addParam(params, { name: CLAUDE_ARGUMENTS_PARAM, required: false, description: hint?.trim() || 'What to type after the command' });
      segments.add({ kind: 'param', name: CLAUDE_ARGUMENTS_PARAM });
    } else if (m[1] !== undefined) {
      const index = Number(m[1]);
      const name = names[index - 1] ?? `arg${index}`;
      addParam(params, { name, required: false, description: `Argument $${index}` });
      segments.add({ kind: 'param', name });
    } else if (m[3] !== undefined) {
      segments.text(m[0]);
      const written = m[3].replace(/[.,;:!?]+$/, '');
      // `@someone` is a mention, not a file: only paths (a folder or an extension) are references.
      if (!/[/.]/.test(written)) continue;
      const pos = positionIn(body, at + m[2].length, fm.bodyLine);
      const path = workspacePath(written, '');
      if (path === undefined) diagnostics.push({ file: input.path, ...pos, severity: 'error', message: `@${written} leaves the workspace: only files inside it can be attached` });
      else if (!attachments.some((a) => a.path === path)) attachments.push({ path, written: `@${written}`, ...pos });
    } else {
      segments.text(m[0]);
      diagnostics.push({
        file: input.path,
        ...positionIn(body, at, fm.bodyLine),
        severity: 'warning',
        message: `Arbor does not run shell commands from prompt files: !\`${m[4]}\` is sent as written`,
      });
    }
  }
  segments.text(body.slice(last));
  return {
    prompt: {
      requestedName: baseName,
      source: 'claude',
      label: 'Claude',
      path: input.path,
      ...(description ? { description } : {}),
      params,
      ...(params.some((p) => p.name === CLAUDE_ARGUMENTS_PARAM) ? { typedParam: CLAUDE_ARGUMENTS_PARAM } : {}),
      ...(model ? { model } : {}),
      ...(tools ? { tools } : {}),
      segments: segments.build(),
      attachments,
      inlineFiles: [],
    },
    diagnostics,
  };
}
