/**
 * The files in play of a request: what its user messages attached (files and selections, the editor's
 * selection included when it was attached) and what retrieval found for them. Instruction files are
 * chosen from these (see `applicableInstructions`). Pure.
 */
import { nodeRagMetadata, readNodeMetadata } from '../metadataKeys';
import type { ConversationNode } from '../types';

/** Workspace-relative paths in play in `nodes` (a request's messages) and in `extra` (a draft's attachments), first seen first. */
export function filesInPlay(nodes: readonly ConversationNode[], extra: readonly string[] = []): string[] {
  const seen = new Set<string>();
  const add = (p: string | undefined) => {
    if (p) seen.add(p.replace(/\\/g, '/'));
  };
  for (const node of nodes) {
    if (node.message.role !== 'user') continue;
    for (const a of readNodeMetadata(node.metadata, 'attachments') ?? []) add(a.path);
    for (const rag of nodeRagMetadata(node.metadata)) for (const item of rag.results) add(item.path);
  }
  for (const p of extra) add(p);
  return [...seen];
}
