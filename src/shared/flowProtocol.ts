/**
 * Flows in the chat, between the host and the webview: the marker on each message a flow wrote, the
 * flow panel (the state diagram, the memory, the step count, Stop), and the requests of the panel and
 * the markers (Stop, Resume, Re-run from a step). Kept apart from `protocol.ts`, which re-exports it.
 *
 * A flow starts as a `/` prompt of kind `flow` (`send` with `promptKind: 'flow'`); its agent steps stream
 * as any answer does (`streamStart`, `streamDelta`, … then one `streamDone` for the whole run).
 */

/** On a message a flow wrote: which flow, state and step ("review-fix · review · step 3"). */
export interface FlowMarkView {
  readonly name: string;
  readonly state: string;
  readonly step: number;
  readonly runId: string;
  /** The conductor's question or answer (it picked the next state). */
  readonly conductor?: boolean;
}

/** One state of the panel's diagram, with where it may go. */
export interface FlowStateView {
  readonly name: string;
  readonly type: 'agent' | 'tool' | 'finish';
  readonly edges: ReadonlyArray<{ readonly to: string; readonly kind: 'rule' | 'default' | 'conductor'; readonly when?: string }>;
}

/** The flow panel: the run going on now, or the last run on the path shown. */
export interface FlowPanelView {
  readonly flow: string;
  readonly description?: string;
  readonly runId: string;
  /** `unfinished`: the path ends inside a run nothing is running now (a reload, a kill): Resume goes on. */
  readonly status: 'running' | 'finished' | 'stopped' | 'failed' | 'unfinished';
  /** The state running, or where the run stopped, failed or will go on; absent once finished. */
  readonly state?: string;
  readonly step: number;
  readonly maxSteps: number;
  readonly states: readonly FlowStateView[];
  readonly start: string;
  /** The memory as it is now (after the last completed step). */
  readonly memory: Readonly<Record<string, unknown>>;
  /** Why the run failed. */
  readonly error?: string;
  /** The flow file is not in the library any more (the diagram is empty): nothing can resume. */
  readonly missing?: boolean;
}

/** Host: show the flow panel, or hide it (`null`). */
export interface FlowPanelMessage {
  readonly type: 'flowPanel';
  readonly panel: FlowPanelView | null;
}
/** Webview: Stop on the flow panel: the run ends before its next step (the step running is cut). */
export interface FlowStopMessage {
  readonly type: 'flowStop';
}
/** Webview: Resume on the panel of an unfinished run: it goes on after its last completed step. */
export interface FlowResumeMessage {
  readonly type: 'flowResume';
}
/** Webview: Re-run on a flow message's marker: its step runs again on a new branch, then the flow goes on. */
export interface FlowRerunMessage {
  readonly type: 'flowRerun';
  readonly nodeId: string;
}

export type FlowToWebview = FlowPanelMessage;
export type FlowFromWebview = FlowStopMessage | FlowResumeMessage | FlowRerunMessage;
