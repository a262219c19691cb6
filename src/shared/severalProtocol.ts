/**
 * Ask Several Models, between the host and the webview: the request that sends one message to 2–4
 * models, the answers streaming side by side (one column each), and Compare and Merge on the answers
 * such a run made. Kept apart from `protocol.ts`, which re-exports it.
 *
 * A run streams as `severalStart`, any number of `severalDelta` (each for one column), a `severalColumnDone`
 * per column, then one `streamDone` for the whole run. A merge streams like any answer (`streamStart`,
 * `streamDelta`, `streamDone`).
 */
import type { Attachment, ErrorView, ImageView } from './commonViews';

/** The fewest and most models one Ask Several Models run asks. */
export const SEVERAL_MIN_MODELS = 2;
export const SEVERAL_MAX_MODELS = 4;

/** One answer of a several-models run, as the Compare and Merge bar lists it. */
export interface SeveralAnswerView {
  readonly nodeId: string;
  readonly model?: string;
  /** The answer has text (a model that failed before writing any has none: it cannot be compared or merged). */
  readonly hasText: boolean;
  /** The answer is a merge of others. */
  readonly merged?: boolean;
}

/** On an answer made by a several-models run (or a merge of one): its sibling answers of that run. */
export interface SeveralView {
  /** The run's answers in sibling order, this one included. */
  readonly answers: readonly SeveralAnswerView[];
  /** This answer merged these (node ids). */
  readonly mergedFrom?: readonly string[];
}

// ---- webview → host ----

/** Webview: send a message (or a `/` prompt) and have each of `models` answer it at once, side by side. */
export interface SendSeveralMessage {
  readonly type: 'sendSeveral';
  readonly requestId: string;
  readonly text: string;
  readonly attachments: readonly Attachment[];
  readonly promptName?: string;
  readonly promptKind?: 'user' | 'messages' | 'flow';
  readonly params?: Readonly<Record<string, string>>;
  /** 2–4 distinct models, in the order picked; the last picked one's answer is shown when the run ends. */
  readonly models: readonly string[];
  /** Images pasted or dropped into the composer, as with `send`. */
  readonly images?: readonly ImageView[];
}
/** Webview: Compare on a run's answer: open two answers side by side in VS Code's diff editor. */
export interface CompareAnswersMessage {
  readonly type: 'compareAnswers';
  readonly leftNodeId: string;
  readonly rightNodeId: string;
}
/** Webview: Merge on a run's answer: `model` fuses `nodeIds` (answers to one question) into a new sibling answer. */
export interface MergeAnswersMessage {
  readonly type: 'mergeAnswers';
  readonly requestId: string;
  readonly nodeIds: readonly string[];
  readonly model: string;
}

// ---- host → webview ----

/** Host: a several-models run started: one column per model, after `parentNodeId` (the question). */
export interface SeveralStartMessage {
  readonly type: 'severalStart';
  readonly requestId: string;
  readonly parentNodeId: string;
  readonly models: readonly string[];
}
/** Host: more text of one column's answer. */
export interface SeveralDeltaMessage {
  readonly type: 'severalDelta';
  readonly requestId: string;
  /** 0-based, in the order of `severalStart`'s models. */
  readonly column: number;
  readonly delta: string;
  readonly thinkingDelta?: string;
}
/** Host: one column's answer ended; `error` when its model failed (the others go on). */
export interface SeveralColumnDoneMessage {
  readonly type: 'severalColumnDone';
  readonly requestId: string;
  readonly column: number;
  readonly error?: ErrorView;
}

/** What the webview sends for Ask Several Models, Compare and Merge. */
export type SeveralFromWebview = SendSeveralMessage | CompareAnswersMessage | MergeAnswersMessage;
/** What the host streams for a several-models run (its end is a `streamDone`). */
export type SeveralToWebview = SeveralStartMessage | SeveralDeltaMessage | SeveralColumnDoneMessage;

/** Why a list of models cannot be asked at once, or `undefined` when it can. */
export function severalModelsProblem(models: readonly string[]): string | undefined {
  const distinct = new Set(models.map((m) => m.trim()).filter((m) => m !== ''));
  if (distinct.size !== models.length) return 'Pick each model once, and no empty model names.';
  if (distinct.size < SEVERAL_MIN_MODELS) return `Pick at least ${SEVERAL_MIN_MODELS} models to ask at once.`;
  if (distinct.size > SEVERAL_MAX_MODELS) return `Pick at most ${SEVERAL_MAX_MODELS} models to ask at once.`;
  return undefined;
}
