/**
 * Sending a `/` prompt of another tool (Copilot, Continue, Claude Code): renders it with the form's values,
 * the editor's and the files it reads, attaches the files it refers to, and records which file version
 * made the message exactly as Arbor's own prompts do (`metadata.prompt`: path, sha256, git blob id), so the
 * chip, its diff and "changed since" work the same. Pure (no `vscode`): the host passes a context.
 */
import { isForeignPromptPath, readConversationMetadata, renderForeignPrompt, type ConversationManager, type ConversationMetadata, type ForeignEditorContext, type ForeignPrompt, type ForeignPromptSet, type NodeMetadata, type PromptInfo, type PromptRef } from '../../core/index';
import type { Attachment, PromptSummary } from '../../shared/protocol';
import { promptDisplayText, userMessageMetadata } from '../conversations/conversationRules';
import { promptTitle, type PromptVersionLookup } from '../conversations/promptMessages';
import { composeUserMessage, type ResolvedAttachment } from '../base/workspacePaths';

/** What a request made from a foreign prompt asks of the answer, for that request only. */
export interface PromptRequestOverrides {
  /** The model the prompt names. */
  model?: string;
  /** The tools it allows (absent: the chat's usual tools). */
  tools?: readonly string[];
  /** A system message for the request (Continue's `<system>`), in place of the chat's. */
  system?: string;
}

/** What sending a foreign prompt needs of the host. */
export interface ForeignSendContext {
  /** The active editor and workspace folder now. */
  editor(): ForeignEditorContext;
  /** The active editor's file as an attachment (Continue's `@currentFile`), when there is one. */
  activeFile(): Attachment | undefined;
  /** Reads attachments under the workspace's rules (rejects what it refuses). */
  resolveAttachments(attachments: readonly Attachment[]): Promise<ResolvedAttachment[]>;
  /** A workspace file's text under the same rules. */
  readText(relPath: string): Promise<string>;
}

/** A foreign prompt as sent: the form's values, the typed text and what the user attached. */
export interface ForeignPromptRequest {
  prompt: ForeignPrompt;
  text: string;
  params: Readonly<Record<string, string>>;
  attachments: readonly ResolvedAttachment[];
}

/** The names of the library's `/` prompts (user and few-shot), which foreign prompts of the same name yield to. */
export function reservedPromptNames(prompts: readonly PromptInfo[]): Set<string> {
  return new Set(prompts.filter((p) => p.kind === 'user' || p.kind === 'messages').map((p) => p.name));
}

/** The foreign prompts as the `/` menu offers them: with their tool's name, and their fields with the placeholder as description. */
export function foreignPromptSummaries(prompts: readonly ForeignPrompt[]): PromptSummary[] {
  return prompts.map((p) => ({
    name: p.name,
    source: p.label,
    description: p.description ?? `${p.label} prompt ${p.path}`,
    params: p.params.map((q) => ({ name: q.name, required: q.required, ...(q.description ? { description: q.description } : {}) })),
  }));
}

/** `lookup` that also knows the version of foreign prompt files, by the path their messages recorded. */
export function withForeignVersions(lookup: PromptVersionLookup | undefined, set: ForeignPromptSet | undefined): PromptVersionLookup | undefined {
  if (!set) return lookup;
  return (kind, name, recordedPath) => {
    if (recordedPath !== undefined && isForeignPromptPath(recordedPath)) return set.prompts.find((p) => p.path === recordedPath)?.gitBlobId ?? null;
    return lookup?.(kind, name, recordedPath);
  };
}

/** The version record of a foreign prompt file (its path is workspace-relative). */
export function foreignPromptRef(prompt: ForeignPrompt): PromptRef {
  return { name: prompt.name, path: prompt.path, sha256: prompt.sha256, gitBlobId: prompt.gitBlobId };
}

/**
 * Adds the rendered prompt as one user message after the current node and returns what the answer's
 * request should use. Nothing is added when a file it refers to cannot be read: the error names it.
 */
export async function addForeignPromptMessage(context: ForeignSendContext, manager: ConversationManager, request: ForeignPromptRequest): Promise<PromptRequestOverrides> {
  const { prompt } = request;
  const given = Object.fromEntries(Object.entries(request.params).filter(([, v]) => typeof v === 'string' && v.trim() !== ''));
  const fileTexts: Record<string, string> = {};
  for (const ref of prompt.inlineFiles) fileTexts[ref.path] = await readRef(ref.path, ref.written, () => context.readText(ref.path));
  const rendered = renderForeignPrompt(prompt, { values: given, typed: request.text, editor: context.editor(), fileTexts });
  if (rendered.missing.length > 0) {
    throw new Error(`Fill ${rendered.missing.map((n) => `"${n}"`).join(', ')} in the form of /${prompt.name} (${prompt.path}) before sending it.`);
  }
  const refs: Attachment[] = prompt.attachments.map((a) => ({ kind: 'file', path: a.path }));
  const active = prompt.attachActiveFile ? context.activeFile() : undefined;
  if (active) refs.push(active);
  const fromPrompt: ResolvedAttachment[] = [];
  for (const [i, ref] of refs.entries()) {
    if (request.attachments.some((a) => a.kind === 'file' && a.path === ref.path && a.startLine === undefined)) continue;
    const written = prompt.attachments[i]?.written ?? ref.path;
    fromPrompt.push(await readRef(ref.path, written, async () => (await context.resolveAttachments([ref]))[0]));
  }
  const attachments = [...fromPrompt, ...request.attachments];
  const metadata = {
    ...userMessageMetadata(attachments, promptDisplayText(prompt.name, request.text)),
    prompt: foreignPromptRef(prompt),
    promptParams: given,
    ...(prompt.model ? { promptSettings: { model: prompt.model } } : {}),
  } satisfies NodeMetadata;
  await manager.addMessage({ role: 'user', content: composeUserMessage(rendered.text, attachments), raw: true, metadata });
  if (!readConversationMetadata(manager.getMetadata() as Record<string, unknown>, 'title')) {
    const title = promptTitle({ name: prompt.name, text: request.text, params: given, description: prompt.description });
    await manager.setMetadata({ title } satisfies ConversationMetadata);
  }
  return { ...(prompt.model ? { model: prompt.model } : {}), ...(prompt.tools ? { tools: prompt.tools } : {}), ...(prompt.system ? { system: prompt.system } : {}) };

  async function readRef<T>(path: string, written: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      throw new Error(`/${prompt.name} refers to ${written} (${path}), which Arbor cannot read: ${err instanceof Error ? err.message : String(err)}. Fix the reference in ${prompt.path}.`);
    }
  }
}
