/**
 * Arbor's chat webview: bootstraps the UI, speaks `src/shared/protocol.ts` with the extension host.
 *
 * Contract with the host page (src/host builds it; test/webview/harness.html mirrors it):
 * - HTML: `<body><div id="root"></div><script nonce=N src=dist/webview/main.js></script></body>`, with
 *   `<link rel=stylesheet>` to dist/webview/main.css and to dist/codicons/codicon.css. Icons here are
 *   codicon classes in the page's own DOM, so no `id="vscode-codicon-stylesheet"` is needed (only
 *   vscode-elements' `<vscode-icon>`, not used, would want it).
 * - CSP: `default-src 'none'; img-src <cspSource> data:; style-src <cspSource> 'nonce-N';
 *   font-src <cspSource>; script-src 'nonce-N'; base-uri 'none'; form-action 'none';`. Therefore this code never uses inline event
 *   handlers, `style=` attributes in HTML strings, eval or remote content: DOM is built with
 *   createElement, styles are classes in styles.css (or `element.style` from script), and model
 *   output goes through markdown-it (`html: false`) and DOMPurify, remote images become links.
 * - The host posts nothing before `ready`; the page keeps `{conversationId, draft, attachments}`
 *   with `setState` (the panel serializer reads `conversationId` after a window reload).
 *
 * Stable selectors for end-to-end tests (`[data-testid=…]`):
 *   message (with data-node-id, data-role; the streaming one has data-streaming="true"),
 *   message-content, thinking, sibling-switcher, sibling-prev, sibling-next, sibling-label ("2/3"),
 *   edit, edit-input, edit-save, edit-cancel, regenerate, regenerate-model, model-menu, model-option,
 *   message-model, message-tokens, message-cost, interrupted-badge ("Stopped" | "Error"), error, retry,
 *   chip (context and attachment chips under messages; click opens the file), code-block, copy-code,
 *   insert-code, composer-input, send, stop, model-picker, attachment, attachment-remove,
 *   attach-file, attach-selection, prompt-menu, prompt-option, prompt-form, prompt-param (data-name),
 *   prompt-form-source (the tool of another tool's prompt file: Copilot, Continue, Claude),
 *   file-picker, file-query, file-option, title, total-cost, chat-model, restricted, notice,
 *   notice-dismiss, message-list, load-earlier (above the oldest message held, when the path has older ones),
 *   branch-here (a message's Branch from Here), branch-banner, branch-banner-text, branch-cancel,
 *   unanswered (a user message with no answer and no known error; it has a retry button).
 *   system-prompt-picker, request-options (its summary: request-options-summary), request-options-form,
 *   option-temperature, option-max-tokens, option-think, option-think-note, options-apply, options-reset,
 *   request-options-error, message-system-prompt (under an answer: the system prompt it was made with).
 *   prompt-chip (data-status current|changed|missing|unknown, data-version), prompt-chip-name, prompt-chip-version,
 *   prompt-chip-note, prompt-diff, prompt-details, prompt-values, prompt-value (data-name), prompt-rendered, prompt-rendered-text.
 *   bookmark (aria-pressed; a bookmarked message has data-bookmarked="true"), add-note, note, note-text,
 *   note-editor, note-input, note-save, note-cancel; a message scrolled to (Go to Bookmark) has class "revealed".
 *   Ask Several Models: several-toggle, several-count, several-menu, several-option (data-model, aria-checked),
 *   several-grid (data-streaming while it streams), several-column (data-model, data-done true|error), several-bar,
 *   several-label, several-compare, several-compare-menu, several-compare-option, several-merge, several-merge-menu,
 *   several-merge-option (data-model).
 *   Flows: flow-marker (data-flow, data-state, data-step) with flow-rerun; flow-panel (data-status, data-flow), flow-name,
 *   flow-status, flow-steps, flow-stop, flow-resume, flow-states, flow-state (data-name, data-current), flow-edge
 *   (data-to, data-kind), flow-error, flow-memory, flow-memory-row (data-key), flow-memory-json.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import { assertNever } from '../src/shared/protocol';
import type { ChatState, PromptSummary, RequestMessage, ResponseMessage, ResponseRequestType, ResponseResult, StreamedRequestType, ToWebview } from '../src/shared/protocol';
import { h } from './dom';
import { PathWindow } from './pathWindow';
import { MarkdownRenderer } from './render/markdown';
import { StreamBuffer } from './streamBuffer';
import { connectVsCode, newRequestId } from './vscodeApi';
import type { PersistedState } from './vscodeApi';
import { BranchBanner } from './view/branchBanner';
import { ChatOptionsControls } from './view/chatOptions';
import { Composer, type ComposerHost } from './view/composer';
import { Header } from './view/header';
import { chooseToolsButton, ToolsToggle } from './view/toolsToggle';
import { MessageList } from './view/messageList';
import { setMenuVscodeModels } from './view/modelMenu';
import { SeveralGrid } from './view/severalGrid';
import { FlowPanel } from './view/flowPanel';

const vscode = connectVsCode();
let persisted: PersistedState = vscode.getState() ?? { draft: '', attachments: [] };
let chat: ChatState | undefined;
let models: readonly string[] = [];
let prompts: readonly PromptSummary[] = [];
let busy = false;
let streamingId: string | undefined;
/** The columns of the Ask Several Models run streaming now. */
let grid: SeveralGrid | undefined;
let lastRequestId: string | undefined;
const pendingRequests = new Map<string, { resolve: (value: ResponseMessage['result']) => void; reject: (error: Error) => void }>();

const pathWindow = new PathWindow();
const renderer = new MarkdownRenderer();
const header = new Header(renderer);
const list = new MessageList(
  renderer,
  {
    switchTo: (nodeId) => vscode.postMessage({ type: 'switch', nodeId }),
    loadEarlier: () => vscode.postMessage({ type: 'loadEarlier' }),
    edit: (nodeId, text) => {
      const requestId = startRequest((id) => ({ type: 'edit', requestId: id, nodeId, text }));
      list.showOutgoing(requestId, text, [], nodeId);
    },
    editPrompt: (nodeId, promptName, params, text) => {
      const requestId = startRequest((id) => ({ type: 'edit', requestId: id, nodeId, text, promptName, params }));
      list.showOutgoing(requestId, promptShown(promptName, text), [], nodeId);
    },
    openPromptDiff: (nodeId) => vscode.postMessage({ type: 'openPromptDiff', nodeId }),
    prompts: () => prompts,
    regenerate: (nodeId, model) => {
      startRequest((requestId) => ({ type: 'regenerate', requestId, nodeId, model }));
    },
    retry: () => {
      startRequest((requestId) => ({ type: 'retry', requestId }));
    },
    branchHere: (nodeId) => vscode.postMessage({ type: 'branchHere', nodeId }),
    compactHere: (nodeId) => vscode.postMessage({ type: 'compactHere', nodeId }),
    undoCompaction: (nodeId) => undoCompaction(nodeId),
    removeBranchSummary: (nodeId) => vscode.postMessage({ type: 'removeBranchSummary', nodeId }),
    runAction: (command) => vscode.postMessage({ type: 'runAction', command }),
    openFile: (path, startLine, endLine) => vscode.postMessage({ type: 'openFile', path, startLine, endLine }),
    setInstructionExcluded: (path, excluded) => vscode.postMessage({ type: 'setInstructionExcluded', path, excluded }),
    setBookmark: (nodeId, bookmarked) => vscode.postMessage({ type: 'setBookmark', nodeId, bookmarked }),
    setNote: (nodeId, note) => vscode.postMessage({ type: 'setNote', nodeId, note }),
    decideTool: (callId, decision) => vscode.postMessage({ type: 'toolDecision', callId, ...decision }),
    restoreFiles: (nodeId) => vscode.postMessage({ type: 'restoreFiles', nodeId }),
    openFileChange: (nodeId, path) => vscode.postMessage({ type: 'openFileChange', nodeId, path }),
    compareAnswers: (leftNodeId, rightNodeId) => vscode.postMessage({ type: 'compareAnswers', leftNodeId, rightNodeId }),
    mergeAnswers: (nodeIds, model) => {
      startRequest((requestId) => ({ type: 'mergeAnswers', requestId, nodeIds, model }));
    },
    models: () => models,
    flowRerun: (nodeId) => vscode.postMessage({ type: 'flowRerun', nodeId }),
    isBusy: () => busy,
  },
  {
    copy: (text) => vscode.postMessage({ type: 'copy', text }),
    insert: (text) => vscode.postMessage({ type: 'insert', text }),
    apply: (code, nodeId) => vscode.postMessage({ type: 'applyCode', code, ...(nodeId !== undefined ? { nodeId } : {}) }),
  },
);
const stream = new StreamBuffer((snapshot) => list.updateStream(snapshot));
const composer = new Composer({
  send: ({ models: several, ...message }) => {
    const requestId = several ? startSeveral(several, message) : startRequest((id) => ({ type: 'send', requestId: id, ...message }));
    const shown = message.promptName ? promptShown(message.promptName, message.text) : message.text;
    list.showOutgoing(requestId, shown, message.attachments);
    // Kept until the host has stored it, so a failed send (or a reload meanwhile) loses nothing typed.
    if (!message.promptName) save({ unsent: { requestId, text: message.text, attachments: message.attachments } });
  },
  stop: () => vscode.postMessage({ type: 'stop', requestId: streamingId ?? lastRequestId ?? '' }),
  selectModel: (model) => vscode.postMessage({ type: 'selectModel', model }),
  findFiles: (query) => request('findFiles', { query }).then(asPaths),
  attachSelection: () => vscode.postMessage({ type: 'attachSelection' }),
  editLast: () => list.editLastUserMessage(),
  saveDraft: (draft, attachments) => {
    save({ draft, attachments });
    postDraftSoon(draft, attachments);
  },
});

const banner = new BranchBanner(() => vscode.postMessage({ type: 'cancelBranch' }));
const chatOptions = new ChatOptionsControls({
  selectSystemPrompt: (name) => vscode.postMessage({ type: 'selectSystemPrompt', name }),
  setRequestOptions: (options) => vscode.postMessage({ type: 'setRequestOptions', options }),
});
header.addControl(chatOptions.element);
const toolsToggle = new ToolsToggle((enabled) => vscode.postMessage({ type: 'setToolsEnabled', enabled }));
header.addControl(toolsToggle.element);
header.addControl(chooseToolsButton(() => vscode.postMessage({ type: 'chooseTools' })));

const root = document.getElementById('root') ?? document.body.appendChild(h('div', { attrs: { id: 'root' } }));
root.classList.add('chat');
const flowPanel = new FlowPanel({ stop: () => vscode.postMessage({ type: 'flowStop' }), resume: () => vscode.postMessage({ type: 'flowResume' }) });
root.replaceChildren(header.element, list.element, flowPanel.element, banner.element, composer.element);
// A message sent but never confirmed stored (the page reloaded meanwhile) comes back as the draft.
const unsentOnLoad = persisted.unsent;
if (unsentOnLoad && !persisted.draft.trim()) save({ draft: unsentOnLoad.text, attachments: unsentOnLoad.attachments });
save({ unsent: undefined });
composer.restore(persisted.draft, persisted.attachments);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data;
  if (typeof message === 'object' && message !== null && typeof (message as { type?: unknown }).type === 'string') {
    handle(message as ToWebview);
  }
});
vscode.postMessage({ type: 'ready' });
focusComposerWhenShown();

function handle(message: ToWebview): void {
  switch (message.type) {
    case 'state': {
      chat = message.state;
      save({ conversationId: chat.conversationId });
      header.update(chat);
      toolsToggle.update(chat.tools);
      if (!chat.busy) {
        streamingId = undefined;
      }
      setBusy(chat.busy || streamingId !== undefined);
      list.setPath(pathWindow.apply(chat), busy, chat.windowStart);
      composer.setCurrentModel(chat.model);
      composer.setImageSupport(chat.imageSupport);
      if (banner.update(chat.branchPoint)) {
        // A new version of a message starts from its text, unless a draft is already there.
        composer.startBranch(chat.branchPoint?.text);
      }
      break;
    }
    case 'streamStart':
      // The host answers a message it has stored: it no longer needs keeping.
      if (persisted.unsent?.requestId === message.requestId) save({ unsent: undefined });
      stream.reset();
      streamingId = message.requestId;
      list.startStream(message.requestId, message.parentNodeId, message.model);
      setBusy(true);
      break;
    case 'streamDelta':
      if (streamingId !== message.requestId) {
        // A delta without its start (the page reloaded mid-answer): open the bubble after the path.
        stream.reset();
        streamingId = message.requestId;
        list.startStream(message.requestId, chat?.currentNodeId ?? '', chat?.model ?? '');
        setBusy(true);
      }
      stream.push(message.delta, message.thinkingDelta);
      break;
    case 'streamDone':
      if (grid?.requestId === message.requestId) grid = undefined;
      if (streamingId === message.requestId) {
        stream.flush();
        stream.reset();
        streamingId = undefined;
      }
      if (!list.endStream(message.requestId, message.error) && message.error) {
        const unsent = persisted.unsent?.requestId === message.requestId ? persisted.unsent : undefined;
        if (unsent) {
          // Not stored: the text goes back in the box. Refused while busy, the bubble goes; when the store
          // could not be reached, it stays with the error, and the notice offers the fixes and Retry.
          restoreUnsent(unsent);
          if (message.error.kind === 'busy' || !list.failOutgoing(message.requestId, message.error, () => composer.sendDraft())) list.dropOutgoing(message.requestId);
        } else {
          // Refused before it streamed (e.g. another answer is still streaming): say why, keep the rest.
          list.dropOutgoing(message.requestId);
        }
        const resend = unsent && message.error.kind !== 'busy' && message.error.retryable;
        header.showNotice(
          { type: 'notice', level: 'error', message: message.error.message, ...(resend ? { actions: message.error.actions, retryLoad: true } : {}) },
          resend ? { runAction: (command) => vscode.postMessage({ type: 'runAction', command }), retryLoad: () => composer.sendDraft(), retryTitle: 'Send the message again' } : {},
        );
      } else if (persisted.unsent?.requestId === message.requestId) {
        save({ unsent: undefined });
      }
      setBusy(streamingId !== undefined);
      break;
    case 'severalStart':
      stream.reset();
      streamingId = message.requestId;
      grid = new SeveralGrid(message.requestId, message.parentNodeId, message.models, renderer, { retry: () => undefined, runAction: (command) => vscode.postMessage({ type: 'runAction', command }) }, () => list.followLive());
      list.startLive(grid);
      setBusy(true);
      break;
    case 'severalDelta':
      if (grid?.requestId === message.requestId) grid.push(message.column, message.delta, message.thinkingDelta);
      break;
    case 'severalColumnDone':
      if (grid?.requestId === message.requestId) grid.endColumn(message.column, message.error);
      break;
    case 'models':
      models = message.models;
      setMenuVscodeModels(message.vscodeModels ?? []);
      composer.setModels(message.models, message.current, message.vscodeModels ?? []);
      break;
    case 'prompts':
      prompts = message.prompts;
      composer.setPrompts(message.prompts);
      break;
    case 'chatOptions':
      chatOptions.update(message);
      break;
    case 'attach':
      composer.addAttachments(message.attachments, message.text);
      break;
    case 'response': {
      const pending = pendingRequests.get(message.requestId);
      pendingRequests.delete(message.requestId);
      if (message.error) {
        pending?.reject(new Error(message.error.message));
        header.showNotice({ type: 'notice', level: 'error', message: message.error.message });
      } else {
        pending?.resolve(message.result);
      }
      break;
    }
    case 'reveal':
      list.reveal(message.nodeId);
      break;
    case 'flowPanel':
      flowPanel.update(message.panel);
      break;
    case 'usage':
      header.meter.update(message.usage);
      break;
    case 'notice':
      header.showNotice(message, {
        undo: undoCompaction,
        summariseBranch: (fromNodeId) => vscode.postMessage({ type: 'summariseBranch', fromNodeId }),
        runAction: (command) => vscode.postMessage({ type: 'runAction', command }),
        // Asks for the chat again, as a page that just loaded does.
        retryLoad: () => vscode.postMessage({ type: 'ready' }),
      });
      if (message.level === 'error' && streamingId === undefined && !chat?.busy) {
        setBusy(false);
      }
      break;
    default:
      assertNever(message);
  }
}

/** Ask Several Models: posts the message for each of `several` to answer at once; returns the request's id. */
function startSeveral(several: readonly string[], message: Omit<Parameters<ComposerHost['send']>[0], 'models'>): string {
  const requestId = newRequestId();
  lastRequestId = requestId;
  vscode.postMessage({ type: 'sendSeveral', requestId, ...message, models: several });
  setBusy(true);
  return requestId;
}

/** Posts a request that streams an answer and returns its id; Stop shows at once, before the host's `streamStart`. */
function startRequest(build: (requestId: string) => RequestMessage<StreamedRequestType>): string {
  const requestId = newRequestId();
  lastRequestId = requestId;
  vscode.postMessage(build(requestId));
  setBusy(true);
  return requestId;
}

/** Posts a request answered by one `response`; resolves with what `WebviewRequests` says that response carries. */
function request<K extends ResponseRequestType>(type: K, fields: Omit<RequestMessage<K>, 'type' | 'requestId'>): Promise<ResponseResult<K>> {
  const requestId = newRequestId();
  return new Promise<ResponseResult<K>>((resolve, reject) => {
    // The response is matched to its request by id at run time, so its result is this request's.
    pendingRequests.set(requestId, { resolve: (value) => resolve(value as ResponseResult<K>), reject });
    vscode.postMessage({ ...fields, type, requestId } as RequestMessage<K>);
  });
}

function undoCompaction(nodeId: string): void {
  vscode.postMessage({ type: 'undoCompaction', nodeId });
}

/** Tells the host the draft changed, at most every 150 ms, so the meter follows typing without a message per key. */
let draftTimer: ReturnType<typeof setTimeout> | undefined;
function postDraftSoon(text: string, attachments: PersistedState['attachments']): void {
  clearTimeout(draftTimer);
  draftTimer = setTimeout(() => vscode.postMessage({ type: 'draft', text, attachments }), 150);
}

function setBusy(value: boolean): void {
  busy = value;
  root.classList.toggle('busy', value);
  composer.setBusy(value);
}

/** Puts a message that was not stored back in the box, before anything typed since. */
function restoreUnsent(unsent: NonNullable<PersistedState['unsent']>): void {
  const typed = composer.text.trim();
  const text = typed ? `${unsent.text}\n\n${composer.text}` : unsent.text;
  const attachments = [...unsent.attachments, ...persisted.attachments.filter((a) => !unsent.attachments.some((u) => JSON.stringify(u) === JSON.stringify(a)))];
  composer.restore(text, attachments);
  save({ draft: text, attachments, unsent: undefined });
}

function save(patch: Partial<PersistedState>): void {
  persisted = { ...persisted, ...patch };
  vscode.setState(persisted);
}

/** How a prompt message shows while it is being sent: `/name` and the typed text. */
function promptShown(promptName: string, text: string): string {
  return `/${promptName}${text ? ` ${text}` : ''}`;
}

function asPaths(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * Puts the caret in the message box once the page has the focus: at once when VS Code focused the
 * chat (a new conversation), else the first time the reader comes to it. A page that loads behind
 * something else (a rename box, a restored tab loading late) never takes the focus from it.
 */
function focusComposerWhenShown(): void {
  if (document.hasFocus()) {
    composer.focus();
    return;
  }
  window.addEventListener(
    'focus',
    () => {
      if (document.activeElement === document.body || document.activeElement === null) composer.focus();
    },
    { once: true },
  );
}
