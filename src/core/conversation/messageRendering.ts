import { InvalidArgumentError, InvalidOperationError } from '../errors';
import type { ConversationPromptBuilder, RagMetadata, RenderOptions } from '../promptContracts';
import type { AddMessageOptions } from './managerTypes';
import type { ConversationNode, Role } from '../types';

/** What to render for a new message: the rendering half of `AddMessageOptions`. */
export type MessageSource = Pick<AddMessageOptions, 'role' | 'content' | 'promptName' | 'params' | 'includeRag' | 'ragConfigs' | 'raw'>;

/** The text of a new message and what the node records about how it was made. */
export interface RenderedMessage {
  content: string;
  promptName?: string;
  metadata: Record<string, unknown>;
}

/** Every stored retrieval of nodes made by the same prompt and role, on any branch. */
export function collectCachedRag(nodes: Iterable<ConversationNode>, promptName: string | undefined, role: Role): RagMetadata[] {
  const out: RagMetadata[] = [];
  for (const node of nodes) {
    const stored = node.metadata.ragMetadata;
    if (node.promptName === promptName && node.message.role === role && stored && typeof stored === 'object') {
      out.push(...(Object.values(stored) as RagMetadata[]));
    }
  }
  return out;
}

/**
 * Turns a message source into its text: a named prompt through the builder, inline system and
 * user text through the builder's inline rendering (so `{{current_date}}` resolves), anything
 * else as given. Records the prompt file version and, when asked, the retrievals made.
 */
export async function renderMessage(
  builder: ConversationPromptBuilder | undefined,
  source: MessageSource,
  rag: { cacheRagResults: boolean; cachedRag?: RagMetadata[] },
): Promise<RenderedMessage> {
  const renderable = source.role === 'system' || source.role === 'user';
  if (source.promptName !== undefined) {
    if (!renderable) {
      throw new InvalidArgumentError(`promptName works only for system and user messages, not "${source.role}"; pass content instead.`);
    }
    if (!builder) {
      throw new InvalidOperationError(`Cannot render prompt "${source.promptName}": the conversation was created without a promptBuilder.`);
    }
  } else if (source.content === undefined) {
    throw new InvalidArgumentError('A message needs content or a promptName.');
  }
  if (!builder || !renderable || (source.promptName === undefined && source.raw)) {
    return { content: source.content as string, metadata: {} };
  }
  const options: RenderOptions = {
    params: source.params ?? {},
    includeRag: source.includeRag ?? true,
    returnRagMetadata: rag.cacheRagResults,
    ...(rag.cachedRag && rag.cachedRag.length > 0 ? { cachedRag: rag.cachedRag } : {}),
    ...(source.ragConfigs ? { ragConfigs: source.ragConfigs } : {}),
  };
  const name = source.promptName;
  const result =
    name !== undefined
      ? source.role === 'system'
        ? await builder.renderSystemPrompt(name, options)
        : await builder.renderUserPrompt(name, options)
      : source.role === 'system'
        ? await builder.renderInlineSystemPrompt(source.content as string, options)
        : await builder.renderInlineUserPrompt(source.content as string, options);
  const metadata: Record<string, unknown> = {};
  if (result.prompt) {
    metadata.prompt = { name: result.prompt.name, path: result.prompt.path, sha256: result.prompt.sha256, gitBlobId: result.prompt.gitBlobId };
  }
  if (rag.cacheRagResults && result.ragMetadata && Object.keys(result.ragMetadata).length > 0) {
    metadata.ragMetadata = result.ragMetadata;
  }
  if (result.paramsMissing.length > 0) metadata.paramsMissing = result.paramsMissing;
  if (result.validationWarnings.length > 0) metadata.validationWarnings = result.validationWarnings;
  if (result.settings && Object.keys(result.settings).length > 0) metadata.promptSettings = result.settings;
  if (result.output) metadata.promptOutput = result.output;
  return { content: result.content, ...(name !== undefined ? { promptName: name } : {}), metadata };
}
