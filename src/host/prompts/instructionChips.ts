/**
 * The instruction chips of a chat: on each user message, the instruction files that applied to the
 * request its answer was made from (as the answer recorded them), whether the chat excludes each now,
 * and whether the file changed since; and the metadata change a chip's toggle makes. Pure.
 */
import { readConversationMetadata, readNodeMetadata, type ConversationMetadata, type ConversationNode, type InstructionRef } from '../../core/index';
import type { InstructionChipView } from '../../shared/protocol';

/** The chips of the request message answered by `answer`; `undefined` when the answer recorded none. */
export function instructionChips(
  answer: ConversationNode | undefined,
  excluded: readonly string[],
  versions?: ReadonlyMap<string, string | null>,
): InstructionChipView[] | undefined {
  if (!answer || answer.message.role !== 'assistant') return undefined;
  const refs = readNodeMetadata(answer.metadata, 'instructions');
  if (!refs?.length) return undefined;
  return refs.map((r) => {
    const now = versions?.get(r.path);
    return {
      path: r.path,
      kind: r.kind,
      sent: r.excluded !== true,
      excluded: excluded.includes(r.path),
      status: now === undefined ? 'unknown' : now === null ? 'missing' : now === r.gitBlobId ? 'current' : 'changed',
    };
  });
}

/** The instruction files recorded by the answers among `nodes`, for looking up their versions now. */
export function recordedInstructions(nodes: readonly ConversationNode[]): InstructionRef[] {
  return nodes.flatMap((n) => (n.message.role === 'assistant' ? (readNodeMetadata(n.metadata, 'instructions') ?? []) : []));
}

/** The conversation metadata that excludes `path` from the chat's requests (or sends it again). */
export function excludedInstructionsUpdate(metadata: Readonly<Record<string, unknown>>, path: string, excluded: boolean): Pick<ConversationMetadata, 'excludedInstructions'> {
  const now = readConversationMetadata(metadata, 'excludedInstructions') ?? [];
  const next = excluded ? [...new Set([...now, path])] : now.filter((p) => p !== path);
  return { excludedInstructions: next.length ? next : undefined };
}
