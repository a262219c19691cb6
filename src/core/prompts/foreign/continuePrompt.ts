/**
 * Continue's prompt files (`.continue/prompts/*.prompt`): a YAML preamble (between `---` lines, or
 * Continue's older form ending at the first `---` line) with `name`, `description`, `version`,
 * `invokable` and sampling options, then a body with an optional `<system>…</system>` block,
 * Handlebars-style `{{{ input }}}` (the text typed with the command), `{{{ currentFile }}}` (the active
 * file), `{{{ path/to/file }}}` (a workspace file's text in place), and `@path` references to attach.
 */
import type { PromptDiagnostic } from '../../libraryFiles/fileTypes';
import type { ForeignFileInput, ForeignFileRef, ForeignParam, ForeignParseResult } from './foreignTypes';
import { addParam, FieldReader, positionIn, readFrontMatter, SegmentBuilder, workspacePath } from './frontMatterFields';

const KNOWN_FIELDS = ['name', 'description', 'version', 'invokable', 'model', 'temperature', 'topP', 'topK', 'minP', 'presencePenalty', 'frequencyPenalty', 'mirostat', 'stop', 'maxTokens'];
const NUMBER_FIELDS = ['temperature', 'topP', 'topK', 'minP', 'presencePenalty', 'frequencyPenalty', 'mirostat', 'maxTokens'];

/** The form field `{{{ input }}}` fills. */
export const CONTINUE_INPUT_PARAM = 'input';

/** Continue's context providers, which Arbor does not have: a reference to one is left empty with a warning. */
const CONTEXT_PROVIDERS = ['clipboard', 'repo-map', 'os', 'problems', 'codebase', 'tree', 'open', 'debugger', 'terminal', 'diff', 'docs', 'url', 'search', 'folder', 'web', 'code'];

// `{{{ x }}}` or `{{ x }}`, and `@x` after a space or line start.
const TOKEN = /\{\{\{?\s*([^{}]*?)\s*\}?\}\}|(^|[\s(])@([^\s`'")\]]+)/g;

/** Parses a Continue prompt file. */
export function parseContinuePrompt(input: ForeignFileInput, baseName: string): ForeignParseResult {
  const fm = readFrontMatter(input.path, input.text, true);
  const fields = new FieldReader(input.path, fm);
  fields.unknownKeys(KNOWN_FIELDS, 'Continue prompt');
  const requestedName = fields.string('name')?.trim().replace(/\s+/g, '-') || baseName;
  const description = fields.string('description');
  const model = fields.string('model')?.trim() || undefined;
  fields.boolean('invokable');
  for (const key of NUMBER_FIELDS) fields.number(key);
  const version = fm.fields.version;
  if (version !== undefined && version !== 1 && version !== 2 && version !== '1' && version !== '2') fields.problem('version', '`version` must be 1 or 2');
  fields.names('stop', false);
  const diagnostics: PromptDiagnostic[] = fm.diagnostics;

  let body = fm.body;
  let bodyLine = fm.bodyLine;
  let system: string | undefined;
  const open = body.indexOf('<system>');
  const close = body.indexOf('</system>');
  if (open >= 0 && close > open) {
    system = body.slice(open + '<system>'.length, close).trim();
    const rest = body.slice(close + '</system>'.length);
    bodyLine += body.slice(0, close + '</system>'.length).split('\n').length - 1;
    body = body.slice(0, open) + rest;
  } else if (open >= 0) {
    diagnostics.push({ file: input.path, ...positionIn(body, open, bodyLine), severity: 'error', message: '<system> is never closed: add </system> after the system message' });
  }

  const params: ForeignParam[] = [];
  const attachments: ForeignFileRef[] = [];
  const inlineFiles: ForeignFileRef[] = [];
  let attachActiveFile = false;
  const segments = new SegmentBuilder();
  let last = 0;
  for (const m of body.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    segments.text(body.slice(last, at));
    last = at + m[0].length;
    if (m[1] !== undefined) {
      const name = m[1];
      const pos = positionIn(body, at, bodyLine);
      if (name === CONTINUE_INPUT_PARAM) {
        addParam(params, { name, required: false, description: 'What to type with the command' });
        segments.add({ kind: 'param', name });
      } else if (name === 'currentFile') {
        segments.add({ kind: 'editor', variable: 'currentFileText' });
      } else if (CONTEXT_PROVIDERS.includes(name)) {
        diagnostics.push({ file: input.path, ...pos, severity: 'warning', message: `Arbor has no "${name}" context provider: {{{ ${name} }}} is left empty` });
      } else if (/[/.]/.test(name)) {
        const path = workspacePath(name, '');
        if (path === undefined) diagnostics.push({ file: input.path, ...pos, severity: 'error', message: `{{{ ${name} }}} leaves the workspace: only files inside it can be read` });
        else {
          if (!inlineFiles.some((f) => f.path === path)) inlineFiles.push({ path, written: m[0], ...pos });
          segments.add({ kind: 'file', path });
        }
      } else {
        diagnostics.push({
          file: input.path,
          ...pos,
          severity: 'warning',
          message: `unknown variable {{{ ${name} }}}: it is left empty (known: {{{ input }}}, {{{ currentFile }}}, {{{ path/to/file }}})`,
        });
      }
      continue;
    }
    segments.text(m[0]);
    const written = m[3].replace(/[.,;:!?]+$/, '');
    const pos = positionIn(body, at + m[2].length, bodyLine);
    if (written === 'currentFile') {
      attachActiveFile = true;
    } else if (CONTEXT_PROVIDERS.includes(written)) {
      diagnostics.push({ file: input.path, ...pos, severity: 'warning', message: `Arbor has no "${written}" context provider: @${written} is sent as written` });
    } else if (/[/.]/.test(written)) {
      const path = workspacePath(written, '');
      if (path === undefined) diagnostics.push({ file: input.path, ...pos, severity: 'error', message: `@${written} leaves the workspace: only files inside it can be attached` });
      else if (!attachments.some((a) => a.path === path)) attachments.push({ path, written: `@${written}`, ...pos });
    }
  }
  segments.text(body.slice(last));
  return {
    prompt: {
      requestedName,
      source: 'continue',
      label: 'Continue',
      path: input.path,
      ...(description ? { description } : {}),
      params,
      ...(params.length > 0 ? { typedParam: CONTINUE_INPUT_PARAM } : {}),
      ...(model ? { model } : {}),
      ...(system ? { system } : {}),
      ...(attachActiveFile ? { attachActiveFile } : {}),
      segments: segments.build(),
      attachments,
      inlineFiles,
    },
    diagnostics,
  };
}
