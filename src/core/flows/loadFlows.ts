/**
 * Loads the flows of a prompts folder (`<prompts>/flows/**.yaml`, `.yml`), under the same rules as prompt
 * files (no file read through a link that leaves the folder), and checks the prompts they name against
 * the library. `FlowLibrary` (a part of the prompt library, `flowLibrary.ts`) calls this on every reload, so
 * flows show in the library's `diagnostics()` (the Problems panel, `arbor-prompts check`) and are found with `getFlow`.
 */
import * as nodePath from 'node:path';
import type { WorkspaceFiles } from '../files';
import { nodeFiles } from '../nodeFiles';
import type { PromptDiagnostic } from '../libraryFiles/fileTypes';
import { sha256Hex } from '../hashes';
import { listPromptFiles, promptReadPath, promptRealRoot } from '../libraryFiles/promptPaths';
import { parseFlowFile } from './flowFile';
import type { FlowDefinition, FlowTemplate } from './flowTypes';

/** The folder of the prompts folder that holds flows. */
export const FLOWS_FOLDER = 'flows';
const FLOW_EXTENSIONS = ['.yaml', '.yml'];
/** Flow files larger than this are not read. */
const MAX_FLOW_BYTES = 1024 * 1024;

/** What `loadFlows` found: every flow that loaded, and every problem. */
export interface LoadedFlows {
  flows: FlowDefinition[];
  problems: PromptDiagnostic[];
  /** Every flow file read, broken ones too, with its sha256 (for change detection). */
  read: Array<{ path: string; sha256: string }>;
}

/** Where the prompts a flow names are looked up (the prompt library has these): only whether one exists matters. */
export interface FlowPromptLookup {
  getSystemPrompt(name: string): object | undefined;
  getUserPrompt(name: string): object | undefined;
}

/**
 * Reads every flow file below `<promptDir>/flows/`; a missing folder gives none. With `prompts`, names of
 * system and user prompts that the library does not have are errors at their line.
 */
export async function loadFlows(promptDir: string, options: { files?: WorkspaceFiles; prompts?: FlowPromptLookup } = {}): Promise<LoadedFlows> {
  const files = options.files ?? nodeFiles;
  const realRoot = await promptRealRoot(files, promptDir);
  const flows: FlowDefinition[] = [];
  const problems: PromptDiagnostic[] = [];
  const byName = new Map<string, FlowDefinition>();
  const read: LoadedFlows['read'] = [];
  for (const rel of (await listPromptFiles(files, nodePath.join(promptDir, FLOWS_FOLDER), FLOWS_FOLDER)).sort()) {
    const ext = FLOW_EXTENSIONS.find((e) => rel.toLowerCase().endsWith(e));
    if (!ext) {
      problems.push({ file: rel, line: 1, column: 1, severity: 'warning', message: `ignored: flow files end in ${FLOW_EXTENSIONS.join(' or ')}` });
      continue;
    }
    const abs = nodePath.join(promptDir, ...rel.split('/'));
    const where = await promptReadPath(files, promptDir, realRoot, abs);
    if ('skip' in where) continue;
    if ('refused' in where) {
      problems.push({ file: rel, line: 1, column: 1, severity: 'error', message: where.refused });
      continue;
    }
    const stat = where.stat ?? (await files.stat(where.path));
    if (stat && stat.size > MAX_FLOW_BYTES) {
      problems.push({ file: rel, line: 1, column: 1, severity: 'error', message: `the file is ${stat.size} bytes; flow files are read up to ${MAX_FLOW_BYTES} bytes` });
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await files.readFile(where.path);
    } catch (err) {
      problems.push({ file: rel, line: 1, column: 1, severity: 'error', message: `could not read the file: ${(err as Error).message}` });
      continue;
    }
    const base = rel.slice(FLOWS_FOLDER.length + 1, rel.length - ext.length);
    const parsed = parseFlowFile({ path: rel, name: base, bytes });
    read.push({ path: rel, sha256: sha256Hex(bytes) });
    problems.push(...parsed.diagnostics);
    if (options.prompts && parsed.draft) problems.push(...flowPromptProblems(parsed.draft, options.prompts));
    if (!parsed.flow) continue;
    const existing = byName.get(parsed.flow.name);
    if (existing) {
      problems.push({ file: rel, line: 1, column: 1, severity: 'error', message: `${existing.path} already has the flow name "${parsed.flow.name}": give each flow its own name` });
      continue;
    }
    byName.set(parsed.flow.name, parsed.flow);
    flows.push(parsed.flow);
  }
  return { flows, problems, read };
}

/** Errors for the system and user prompts a flow names that the library does not have. */
export function flowPromptProblems(flow: FlowDefinition, prompts: FlowPromptLookup): PromptDiagnostic[] {
  const out: PromptDiagnostic[] = [];
  const check = (t: FlowTemplate | undefined, kind: 'system' | 'user', where: string) => {
    if (!t || !('prompt' in t)) return;
    const found = kind === 'system' ? prompts.getSystemPrompt(t.prompt) : prompts.getUserPrompt(t.prompt);
    if (!found) out.push({ file: flow.path, line: t.line, column: t.column, severity: 'error', message: `${where} names the ${kind} prompt "${t.prompt}", which is not in prompts/${kind}/: add it or fix the name` });
  };
  check(flow.conductor?.system, 'system', 'the conductor');
  check(flow.conductor?.user, 'user', 'the conductor');
  for (const state of flow.states.values()) {
    if (state.type === 'agent') {
      check(state.system, 'system', `state "${state.name}"`);
      check(state.user, 'user', `state "${state.name}"`);
    } else if (state.type === 'finish') check(state.template, 'user', `state "${state.name}"`);
  }
  return out;
}
