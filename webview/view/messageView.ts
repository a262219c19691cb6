/**
 * One message of the path as an `<article>`: author, the `‹ 2/3 ›` sibling switcher, Edit or
 * Regenerate, Bookmark and Note, the thinking text collapsed, the Markdown content, the reader's note,
 * attachments and context chips, and under an answer its model, tokens, cost and an interrupted or
 * error badge with Retry.
 */
import type { Attachment, ContextChip, ErrorView, MessageFileChanges, MessageView } from '../../src/shared/protocol';
import { h, icon, iconButton, textButton } from '../dom';
import { formatCost, formatRange, formatTokens } from '../format';
import type { MarkdownRenderer } from '../render/markdown';
import type { MessageActions } from './actions';
import { errorBlock, fillContent, siblingSwitcher } from './messageParts';
import { markCovered, renderBranchSummary, renderCompaction } from './summaryCards';
import { EDIT_NOTE, openInlineEditor } from './inlineEditor';
import { openPromptEditor, promptForEdit } from './promptEditor';
import { promptChip, promptDetails } from './promptMessage';
import { toggleModelMenu } from './modelMenu';
import { thinkingSummary } from './thinking';
import { renderToolCalls } from './toolCards';
import { instructionChips } from './instructionChips';
import { severalBar } from './severalBar';
import { flowMarker } from './flowMarker';
import { messageImages } from './imageThumbnails';
import { correctionNote, invalidAnswerNote, structuredCard } from './structuredCard';

const ROLE_LABELS: Record<MessageView['role'], { label: string; icon: string }> = {
  user: { label: 'You', icon: 'account' },
  assistant: { label: 'Assistant', icon: 'sparkle' },
  system: { label: 'System', icon: 'gear' },
  tool: { label: 'Tool', icon: 'tools' },
  function: { label: 'Function', icon: 'symbol-method' },
};

/** Where a message sits in the shown path, which changes what it offers. */
export interface MessagePlacement {
  /** The last message of the path: an error there offers Retry. */
  isLast: boolean;
}

/** Builds the element of one message. */
export function renderMessage(
  message: MessageView,
  placement: MessagePlacement,
  renderer: MarkdownRenderer,
  actions: MessageActions,
): HTMLElement {
  if (message.compaction) {
    return renderCompaction(message, message.compaction, renderer, actions);
  }
  if (message.branchSummary) {
    return renderBranchSummary(message, message.branchSummary, renderer, actions);
  }
  if (message.toolResultOf !== undefined) {
    // Its call's card shows the result; the element keeps the message's place in the list.
    return h('article', { className: 'message role-tool tool-result', testId: 'tool-result', dataset: { nodeId: message.nodeId, callId: message.toolResultOf }, attrs: { hidden: '' } });
  }
  const structured = message.structured;
  if (structured?.kind === 'correction') {
    return correctionNote(message, structured, message.unanswered ? unansweredBlock(message.unanswered.error, renderer, actions) : null);
  }
  const role = ROLE_LABELS[message.role];
  const content = h('div', { className: 'message-content markdown', testId: 'message-content' });
  // A `/` prompt message shows the text typed with it here; its chip, values and rendered text say the rest.
  const prompt = message.prompt;
  const details = prompt?.kind === 'user' ? promptDetails(prompt) : null;
  fillContent(content, prompt?.kind === 'user' ? prompt.text : message.content, renderer);
  content.classList.toggle('empty', prompt?.kind === 'user' && !prompt.text);
  // A structured answer reads as its card; an invalid one keeps its raw text, with what was wrong below.
  if (structured?.accepted) content.replaceChildren(structuredCard(structured));

  const article = h(
    'article',
    {
      className: `message role-${message.role}${message.bookmarked ? ' bookmarked' : ''}`,
      testId: 'message',
      dataset: { nodeId: message.nodeId, role: message.role, bookmarked: message.bookmarked ? 'true' : undefined },
      ariaLabel: `${role.label}${message.model ? ` (${message.model})` : ''}`,
    },
    messageHeader(
      message.role,
      message.branchName ? h('span', { className: 'branch-name', testId: 'branch-name', text: message.branchName }) : null,
      message.flow ? flowMarker(message.flow, message.nodeId, actions.flowRerun?.bind(actions), () => actions.isBusy()) : null,
      prompt ? promptChip(prompt, () => actions.openPromptDiff(message.nodeId)) : message.promptName ? h('span', { className: 'prompt-name', text: `/${message.promptName}` }) : null,
      siblingSwitcher(message, actions),
      messageActions(message, content, actions, details),
    ),
    message.thinking ? thinkingBlock(message.thinking) : null,
    content,
    messageImages(message.images) ?? null,
    message.toolCalls?.length ? renderToolCalls(message.toolCalls, actions) : null,
    message.fileChanges ? fileChangeChips(message.fileChanges, actions) : null,
    details,
    message.note ? noteBlock(message, actions) : null,
    message.attachments.length > 0 ? attachmentChips(message.attachments, actions) : null,
    message.chips.length > 0 ? contextChips(message.chips, actions) : null,
    message.instructions?.length ? instructionChips(message.instructions, actions) : null,
    message.role === 'assistant' ? messageMeta(message) : null,
    message.several ? severalBar(message, message.several, actions) : null,
    message.error ? errorBlock(renderer.renderInline(message.error), placement.isLast, actions) : null,
    structured?.problems && !structured.accepted ? invalidAnswerNote(structured, placement.isLast, actions) : null,
    message.unanswered ? unansweredBlock(message.unanswered.error, renderer, actions) : null,
  );
  if (message.covered) {
    markCovered(article);
  }
  return article;
}

/**
 * A stand-in for a message far from the end of a long path: the same article and selectors with the
 * raw text (inert, searchable, roughly the right height). The list swaps in `renderMessage`'s full
 * element when it nears the viewport or the page is idle, so a long path shows at once.
 */
export function renderPlaceholder(message: MessageView): HTMLElement {
  const role = ROLE_LABELS[message.role];
  return h(
    'article',
    {
      className: `message role-${message.role} placeholder`,
      testId: 'message',
      dataset: { nodeId: message.nodeId, role: message.role, pending: 'true' },
      ariaLabel: role.label,
    },
    h('div', { className: 'message-content pending', testId: 'message-content', text: message.content }),
  );
}

/** The header row of a message: the role's icon and name, then `extras` (switcher, actions, indicators). */
export function messageHeader(role: MessageView['role'], ...extras: Array<Node | string | null>): HTMLElement {
  const { label, icon: iconName } = ROLE_LABELS[role];
  return h('header', { className: 'message-header' }, icon(iconName), h('span', { className: 'message-author', text: label }), ...extras);
}

/**
 * Under a user message that has no answer: the failure with its fixes and Retry, or, when this
 * window did not see why (a reload, another window), that it is unanswered, with Retry.
 */
function unansweredBlock(error: ErrorView | undefined, renderer: MarkdownRenderer, actions: MessageActions): HTMLElement {
  if (error) {
    return errorBlock(renderer.renderInline(error.message), error.retryable, actions, error.actions);
  }
  const retry = textButton('Retry', 'retry', 'Retry: answer this message', () => actions.retry(), { secondary: true });
  return h('div', { className: 'message-unanswered', testId: 'unanswered' }, icon('info'), h('span', { className: 'message-error-text', text: 'No answer yet.' }), retry);
}

function messageActions(message: MessageView, content: HTMLElement, actions: MessageActions, details: HTMLElement | null): HTMLElement {
  const bar = h('span', { className: 'message-actions' });
  if (message.parentId !== null) {
    const title = message.role === 'user' ? 'Branch from here: write a new version of this message' : 'Branch from here: continue from this message in a new branch';
    bar.append(
      iconButton('git-branch', title, 'branch-here', () => {
        if (!actions.isBusy()) {
          actions.branchHere(message.nodeId);
        }
      }),
    );
  }
  if (message.role === 'user') {
    const prompt = message.prompt?.kind === 'user' ? message.prompt : undefined;
    bar.append(
      iconButton('edit', prompt ? 'Edit the prompt\'s values into a new branch' : 'Edit this message into a new branch', 'edit', () => {
        if (actions.isBusy()) {
          return;
        }
        if (prompt) {
          const anchor = details ?? content;
          openPromptEditor(anchor, [content, ...(details ? [details] : [])], promptForEdit(prompt, actions.prompts()), prompt, (edit) =>
            actions.editPrompt(message.nodeId, prompt.name, edit.params, edit.text),
          );
        } else {
          openInlineEditor(content, message.content, (text) => actions.edit(message.nodeId, text));
        }
      }),
    );
  }
  if (message.role === 'assistant' && !message.covered) {
    bar.append(
      iconButton('fold', 'Compact up to here: summarise the older turns, keep the newest', 'compact-here', () => {
        if (!actions.isBusy()) {
          actions.compactHere(message.nodeId);
        }
      }),
    );
  }
  if (message.role === 'assistant') {
    const regenerate = iconButton('refresh', 'Regenerate this answer as a new branch', 'regenerate', () => {
      if (!actions.isBusy()) {
        actions.regenerate(message.nodeId);
      }
    });
    const pick = iconButton('chevron-down', 'Regenerate with another model', 'regenerate-model', () => {
      if (!actions.isBusy()) {
        toggleModelMenu(pick, actions.models(), message.model, (model) => actions.regenerate(message.nodeId, model));
      }
    });
    pick.setAttribute('aria-haspopup', 'menu');
    bar.append(regenerate, pick);
  }
  if (message.restoreFilesNodeId !== undefined) {
    const nodeId = message.restoreFilesNodeId;
    bar.append(iconButton('history', 'Restore Files to Here: bring the files this conversation changed back to how they were after this message', 'restore-files-here', () => actions.restoreFiles(nodeId)));
  }
  bar.append(bookmarkButton(message, actions), noteButton(message, content, actions));
  return bar;
}

/** Bookmark or remove the bookmark; pressed while the message is bookmarked. Works while an answer streams. */
function bookmarkButton(message: MessageView, actions: MessageActions): HTMLButtonElement {
  const label = (on: boolean) => (on ? 'Remove the bookmark' : 'Bookmark this message ("Arbor: Go to Bookmark" lists it)');
  let on = message.bookmarked === true;
  const button = iconButton('bookmark', label(on), 'bookmark', () => {
    on = !on;
    // Shown at once; the host's next state confirms it.
    button.classList.toggle('on', on);
    button.setAttribute('aria-pressed', String(on));
    button.title = label(on);
    button.setAttribute('aria-label', label(on));
    actions.setBookmark(message.nodeId, on);
  });
  button.classList.toggle('on', on);
  button.setAttribute('aria-pressed', String(on));
  return button;
}

/** Add a note, or edit the one there. */
function noteButton(message: MessageView, content: HTMLElement, actions: MessageActions): HTMLButtonElement {
  const button = iconButton('note', message.note ? 'Edit the note' : 'Add a note (shown here and in the sidebar, never sent to the model)', 'add-note', () => {
    const shown = content.parentElement?.querySelector<HTMLElement>('[data-testid="note"]') ?? undefined;
    openNoteEditor(shown ?? content, message, actions, shown !== undefined);
  });
  if (message.note) button.classList.add('on');
  return button;
}

function openNoteEditor(anchor: HTMLElement, message: MessageView, actions: MessageActions, replace: boolean): void {
  openInlineEditor(anchor, message.note ?? '', (note) => actions.setNote(message.nodeId, note), EDIT_NOTE, replace);
}

/** The reader's note under the message; clicking it edits it. */
function noteBlock(message: MessageView, actions: MessageActions): HTMLElement {
  const block: HTMLElement = h(
    'aside',
    {
      className: 'message-note',
      testId: 'note',
      title: 'Your note: never sent to the model. Click to edit it.',
      attrs: { role: 'note', tabindex: '0', 'aria-label': 'Note (never sent to the model)' },
      onClick: () => openNoteEditor(block, message, actions, true),
    },
    icon('note'),
    h('span', { className: 'message-note-text', testId: 'note-text', text: message.note ?? '' }),
  );
  block.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      openNoteEditor(block, message, actions, true);
    }
  });
  return block;
}

function thinkingBlock(thinking: string): HTMLElement {
  return h(
    'details',
    { className: 'thinking', testId: 'thinking' },
    thinkingSummary(),
    h('div', { className: 'thinking-content', text: thinking }),
  );
}

function attachmentChips(attachments: readonly Attachment[], actions: MessageActions): HTMLElement {
  return h(
    'div',
    { className: 'chips attachments' },
    ...attachments.map((attachment) => {
      const button = chip(formatRange(attachment.path, attachment.startLine, attachment.endLine), attachment.kind === 'selection' ? 'selection' : 'file', () =>
        actions.openFile(attachment.path, attachment.startLine, attachment.endLine),
      );
      if (attachment.ignored) markIgnored(button);
      return button;
    }),
  );
}

function contextChips(chips: readonly ContextChip[], actions: MessageActions): HTMLElement {
  return h(
    'div',
    { className: 'chips context-chips', attrs: { role: 'list', 'aria-label': 'Retrieved context' } },
    ...chips.map((item) => {
      const button = chip(formatRange(item.path, item.startLine, item.endLine), 'file-code', () =>
        actions.openFile(item.path, item.startLine, item.endLine),
      );
      if (item.source || item.score !== undefined) {
        button.title = [item.source, item.score !== undefined ? `score ${item.score.toFixed(2)}` : undefined].filter(Boolean).join(', ');
      }
      if (item.ignored) markIgnored(button);
      return button;
    }),
  );
}

/** Says on a chip that its file is one the workspace's rules leave out, read because the user picked it. */
function markIgnored(button: HTMLButtonElement): void {
  button.append(h('span', { className: 'chip-note', testId: 'chip-ignored', text: 'ignored' }));
  button.title = `${button.title ? `${button.title}; ` : ''}ignored by the workspace's rules, read because you picked it`;
  button.setAttribute('aria-label', `${button.getAttribute('aria-label') ?? ''} (ignored by the workspace's rules)`);
}

function chip(label: string, iconName: string, onClick: () => void): HTMLButtonElement {
  return h(
    'button',
    { className: 'chip', testId: 'chip', ariaLabel: `Open ${label}`, title: `Open ${label}`, attrs: { type: 'button' }, onClick },
    icon(iconName),
    h('span', { className: 'chip-label', text: label }),
  );
}

function messageMeta(message: MessageView): HTMLElement {
  const parts: Array<Node | null> = [];
  if (message.model) {
    parts.push(h('span', { className: 'meta-model', testId: 'message-model', text: message.model }));
  }
  if (message.systemPrompt) {
    const { name, path, version } = message.systemPrompt;
    parts.push(
      h('span', { className: 'meta-system-prompt', testId: 'message-system-prompt', title: `Made with the system prompt ${name} (${path}, version ${version})` }, icon('gear'), `${name} ${version.slice(0, 7)}`),
    );
  }
  if (message.usage) {
    parts.push(h('span', { className: 'meta-tokens', testId: 'message-tokens', text: formatTokens(message.usage.totalTokens), title: `${message.usage.promptTokens} prompt + ${message.usage.completionTokens} completion` }));
  }
  if (message.costUsd !== undefined) {
    parts.push(h('span', { className: 'meta-cost', testId: 'message-cost', text: formatCost(message.costUsd) }));
  }
  if (message.interrupted) {
    parts.push(interruptedBadge(message.error !== undefined));
  }
  return h('footer', { className: 'message-meta' }, ...parts);
}

/** The "Stopped" or "Error" badge of an answer cut short. */
export function interruptedBadge(failed: boolean): HTMLElement {
  return h('span', {
    className: `badge ${failed ? 'badge-error' : 'badge-stopped'}`,
    testId: 'interrupted-badge',
    text: failed ? 'Error' : 'Stopped',
    title: failed ? 'The answer failed part way' : 'The answer was stopped; the partial text is kept',
  });
}

/** The files a message changed: a chip per file (its diff on click) and Restore Files to Here. */
function fileChangeChips(changes: MessageFileChanges, actions: MessageActions): HTMLElement {
  return h(
    'div',
    { className: 'chips file-changes', testId: 'file-changes' },
    ...changes.files.map((f) => {
      const counts = f.added !== undefined ? ` +${f.added} −${f.removed ?? 0}` : '';
      const button = chip(`${f.path}${counts}`, f.kind === 'created' ? 'new-file' : f.kind === 'deleted' ? 'trash' : 'diff', () => actions.openFileChange(f.nodeId, f.path));
      button.dataset.testid = 'file-change';
      button.title = `${f.kind === 'created' ? 'Created' : f.kind === 'deleted' ? 'Deleted' : 'Changed'} ${f.path}: show the change`;
      return button;
    }),
    textButton('Restore Files to Here', 'restore-files', 'Restore the files to how they were after this message', () => actions.restoreFiles(changes.restoreNodeId), { secondary: true }),
  );
}
