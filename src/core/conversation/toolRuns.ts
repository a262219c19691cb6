/**
 * The conversation's side of a tool run: how one step's model answer is asked for and stored (through
 * the same preparation and commit as `complete` and `streamComplete`), and whether the model takes
 * tools at all. `ConversationManager.runWithTools` hands these to the loop in `src/core/tools/`.
 */
import { InvalidOperationError } from '../errors';
import type { LLMProvider } from '../llm/provider';
import type { NewNode } from '../storage/storage';
import { runToolLoop, type ToolAnswerRequest, type ToolRunResult } from '../tools/toolLoop';
import type { ConversationNode, LLMResponse, LLMStreamChunk } from '../types';
import type { CompleteOptions, ToolRunOptions } from './managerTypes';
import type { PreparedCall } from './preparedCall';

/** What answering one step needs of the manager: its queued preparation, its stream and its commit. */
export interface AnswerSteps {
  /** Prepares the request that answers `from`, in the manager's queue. */
  prepare(options: CompleteOptions, from: string): Promise<PreparedCall>;
  /** Streams the answer and stores it (a partial one too, as interrupted), reporting the stored node. */
  stream(prepared: PreparedCall, options: CompleteOptions, onCommitted: (node: ConversationNode) => void): AsyncGenerator<LLMStreamChunk, LLMResponse>;
  /** Asks for the whole answer and stores it, reporting the stored node. */
  complete(prepared: PreparedCall, options: CompleteOptions, onCommitted: (node: ConversationNode) => void): Promise<LLMResponse>;
}

/** What a whole run needs of the manager besides its answers: the model, the commit, and the guard on its branch. */
export interface ToolRunSteps extends AnswerSteps {
  llm: LLMProvider;
  /** Stores a node (in the manager's queue) and returns a copy with its id. */
  commit(node: NewNode): Promise<ConversationNode>;
  /** Keeps the branch the run writes into from being deleted, following its newest node. */
  hold(nodeId: string): { move(to: string): void; release(): void };
}

/** Runs the tool loop from `start` with the manager's steps: see `ConversationManager.runWithTools`. */
export async function runToolsFrom(steps: ToolRunSteps, start: string, options: ToolRunOptions): Promise<ToolRunResult> {
  const { executor, approve, maxSteps, signal, onEvent, onChunk, stream, onResultStored, toolsForStep, ...complete } = options;
  const model = complete.configOverrides?.model ?? steps.llm.model;
  const held = steps.hold(start);
  try {
    return await runToolLoop(
      {
        startNodeId: start,
        supportsTools: () => supportsTools(steps.llm, model),
        answer: (parentId, request) =>
          answerStep(steps, parentId, complete, {
            ...request,
            onCommitted: (node) => {
              held.move(node.nodeId);
              request.onCommitted(node);
            },
          }),
        commit: async (node) => {
          const added = await steps.commit(node);
          held.move(added.nodeId);
          return added;
        },
      },
      { executor, approve, maxSteps, signal, onEvent, onChunk, stream, onResultStored, toolsForStep },
    );
  } finally {
    held.release();
  }
}

/**
 * One answer of a tool run under `parentId`: `base` (the run's `complete` options) with the step's
 * tools and signal, the step number in the node's metadata, and the branch name on the first step only.
 */
export async function answerStep(steps: AnswerSteps, parentId: string, base: CompleteOptions, request: ToolAnswerRequest): Promise<{ node: ConversationNode; response: LLMResponse }> {
  // The tools offered are the step's own (none when the model does not take them), never the caller's.
  const { branchName, tools: _tools, ...rest } = base;
  const options: CompleteOptions = {
    ...rest,
    ...(request.step === 1 && branchName !== undefined ? { branchName } : {}),
    metadata: { ...(base.metadata ?? {}), toolStep: request.step },
    ...(request.tools ? { tools: request.tools } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
  };
  let node: ConversationNode | undefined;
  const committed = (added: ConversationNode) => {
    node = added;
    request.onCommitted(added);
  };
  const prepared = await steps.prepare(options, parentId);
  let response: LLMResponse;
  if (request.stream) {
    const stream = steps.stream(prepared, options, committed);
    let next = await stream.next();
    while (!next.done) {
      request.onChunk?.(next.value);
      next = await stream.next();
    }
    response = next.value;
  } else {
    response = await steps.complete(prepared, options, committed);
  }
  if (!node) throw new InvalidOperationError('The answer was not stored.');
  return { node, response };
}

/**
 * Whether `model` takes tools, as its provider says (Ollama's `/api/show` capabilities, the
 * OpenAI-compatible `supportsTools` setting); a provider that cannot tell is trusted to.
 */
export async function supportsTools(llm: LLMProvider, model: string): Promise<boolean> {
  if (!llm.supportsTools) return true;
  try {
    return await llm.supportsTools(model);
  } catch {
    // The server cannot be asked (down, model missing): the request itself will say why.
    return true;
  }
}
