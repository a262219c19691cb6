/**
 * What the chat shows of Ask Several Models on an answer, which answer a finished run shows, and an
 * answer as the document one side of Compare shows. Pure.
 */
import { readNodeMetadata, type ConversationNode } from '../../../core/index';
import type { SeveralView } from '../../../shared/protocol';

/**
 * The Compare and Merge bar's view of `node`: the answers among `siblings` (the node's parent's children,
 * in order) made by the same several-models run; `undefined` for an answer no run made, or when the run
 * left it alone among its siblings (the others deleted).
 */
export function severalView(node: ConversationNode, siblings: readonly ConversationNode[]): SeveralView | undefined {
  const run = readNodeMetadata(node.metadata, 'severalRun');
  if (run === undefined || node.message.role !== 'assistant') return undefined;
  const answers = siblings
    .filter((s) => s.message.role === 'assistant' && readNodeMetadata(s.metadata, 'severalRun') === run)
    .map((s) => {
      const model = readNodeMetadata(s.metadata, 'model');
      return {
        nodeId: s.nodeId,
        ...(model !== undefined ? { model } : {}),
        hasText: s.message.content.trim() !== '',
        ...(readNodeMetadata(s.metadata, 'mergedFrom') ? { merged: true } : {}),
      };
    });
  if (answers.length < 2) return undefined;
  const mergedFrom = readNodeMetadata(node.metadata, 'mergedFrom');
  return { answers, ...(mergedFrom ? { mergedFrom } : {}) };
}

/**
 * The answer a finished run shows: the one of the model picked last, else the first one stored (in the
 * order the models were picked); `undefined` when no model answered.
 */
export function shownAnswer(models: readonly string[], nodeByModel: ReadonlyMap<string, string>): string | undefined {
  const last = nodeByModel.get(models[models.length - 1] ?? '');
  if (last !== undefined) return last;
  for (const model of models) {
    const id = nodeByModel.get(model);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** One side of Compare: the answer's text under a line naming its model (and the answers it merged). */
export function answerDocument(node: ConversationNode): string {
  const model = readNodeMetadata(node.metadata, 'model') ?? 'unknown model';
  const merged = readNodeMetadata(node.metadata, 'mergedFrom');
  const title = merged ? `${model}, merging answers ${merged.join(', ')}` : model;
  return `<!-- ${title} -->\n\n${node.message.content.trimEnd()}\n`;
}

/** How Compare names one side: its model, and "merge" for a merged answer. */
export function answerLabel(node: ConversationNode): string {
  const model = readNodeMetadata(node.metadata, 'model') ?? 'unknown model';
  return readNodeMetadata(node.metadata, 'mergedFrom') ? `${model} (merge)` : model;
}
