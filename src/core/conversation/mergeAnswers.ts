/**
 * Merge of several answers to one question (Ask Several Models): the request that asks a model to fuse
 * them into one answer, each answer labelled by the model that wrote it. Pure.
 */
import { InvalidArgumentError } from '../errors';
import { readNodeMetadata } from '../metadataKeys';
import type { ConversationNode, LLMMessage } from '../types';

/** The system text of a merge request; it says what the model is to do with the answers it is given. */
export const MERGE_SYSTEM_PROMPT = [
  'You merge several answers to one question into one answer.',
  'The user message holds the question and each answer, labelled by the model that wrote it.',
  'Write the single best answer to the question: keep what the answers agree on, take the strongest part of each,',
  'correct what one of them got wrong when another shows it, and leave out repetition.',
  'Answer the question directly, in the answers\' language and format (Markdown, code blocks), without mentioning the answers, the models or the merge.',
].join(' ');

/** One answer to merge, with the label it gets in the request. */
export interface MergeSource {
  nodeId: string;
  /** The model that wrote it (`unknown model` when its node does not say). */
  model: string;
  text: string;
}

/** A merge request made ready: the messages to send and the answers it lists, in order. */
export interface MergeRequest {
  messages: LLMMessage[];
  /** The answer nodes the request lists: what the merged answer records as `mergedFrom`. */
  mergedFrom: string[];
}

/** The request text: the question, then each answer under a heading that names its model. */
export function mergePromptText(question: string, answers: readonly MergeSource[]): string {
  const parts = [`## Question\n\n${question.trim()}`];
  answers.forEach((a, i) => parts.push(`## Answer ${i + 1} (${a.model})\n\n${a.text.trim()}`));
  parts.push(`Merge these ${answers.length} answers into one answer to the question.`);
  return parts.join('\n\n');
}

/**
 * Builds the merge request for `answers`, which must be at least two different answers (assistant
 * messages with text) to `question`; an error says which one does not fit, so nothing is sent for it.
 */
export function buildMergeRequest(question: ConversationNode, answers: readonly ConversationNode[]): MergeRequest {
  const unique = answers.filter((a, i) => answers.findIndex((b) => b.nodeId === a.nodeId) === i);
  if (unique.length < 2) throw new InvalidArgumentError('Pick at least two answers to merge.');
  const sources: MergeSource[] = [];
  for (const answer of unique) {
    if (answer.parentId !== question.nodeId || answer.message.role !== 'assistant') {
      throw new InvalidArgumentError(`Message "${answer.nodeId}" is not an answer to the question being merged; merge only answers to the same message.`);
    }
    if (!answer.message.content.trim()) {
      throw new InvalidArgumentError(`The answer "${answer.nodeId}" (${readNodeMetadata(answer.metadata, 'model') ?? 'unknown model'}) has no text to merge; leave it out.`);
    }
    sources.push({ nodeId: answer.nodeId, model: readNodeMetadata(answer.metadata, 'model') ?? 'unknown model', text: answer.message.content });
  }
  return {
    messages: [
      { role: 'system', content: MERGE_SYSTEM_PROMPT },
      { role: 'user', content: mergePromptText(question.message.content, sources) },
    ],
    mergedFrom: sources.map((s) => s.nodeId),
  };
}
