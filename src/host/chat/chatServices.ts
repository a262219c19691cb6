import type * as vscode from 'vscode';
import type { ConversationManager, ConversationStorage, PromptBuilder } from '../../core/index';
import type { ApplyServices } from '../apply/applyServices';
import type { CodeApply } from '../apply/codeApply';
import type { ContextLengths } from '../llm/contextBudget';
import type { OnboardingServices } from '../onboarding/onboardingServices';
import type { VscodeLmProvider } from '../llm/vscodeLmProvider';
import type { PromptServices } from '../prompts/promptServices';
import type { WorkspaceInstructions } from '../prompts/workspaceInstructions';
import type { ArborSettings } from '../settings/settings';
import type { ToolServices } from '../tools/toolServices';

/**
 * What the chat panels read from the extension's shared services (`Services` in src/host implements
 * it): the conversations and the store, the models, the prompts, the tools, and what Apply, the
 * prompt features and the first-run actions take from chats (a chat hands its services on to them).
 */
export interface ChatServices extends ApplyServices, PromptServices, OnboardingServices {
  /** The tools chats may offer, and the user's grants. */
  readonly tools: ToolServices;
  /** Apply on code blocks: the diff review and its commands (registered by `activate`). */
  readonly codeApply: CodeApply;
  /** The workspace's instruction files (AGENTS.md, rules), cached and watched. */
  readonly instructions: WorkspaceInstructions;
  /** VS Code's own language models (`vscode.lm`), answering the `vscode:` model ids. */
  readonly vscodeLm: VscodeLmProvider;
  /** The models' context lengths, as the provider lists them. */
  readonly contextLengths: ContextLengths;
  /** The extension's installed files (for `dist/`). */
  readonly extensionUri: vscode.Uri;
  /** Fires after the `arbor.*` settings or the API key changed (the provider is rebuilt lazily). */
  readonly onDidChangeSettings: vscode.Event<ArborSettings>;
  /** Fires when the workspace becomes trusted (prompts and indexing turn on). */
  readonly onDidChangeTrust: vscode.Event<boolean>;
  /** Fires with a conversation id after it changed, in this window or (on the next poll) in another. */
  readonly onDidChangeConversation: vscode.Event<string>;
  /**
   * Makes `model` the model of chat `conversationId` (when given) and the default for new chats
   * (`arbor.model`). Returns whether the default was already that model, so nothing else announces it.
   */
  selectModel(model: string, conversationId?: string): Promise<boolean>;
  /**
   * Makes `name` (a `prompts/system/` prompt, `''` for none) the system prompt of chat `conversationId` from
   * its next request, and the default for new chats (`arbor.systemPrompt`). Returns whether the default was already it.
   */
  selectSystemPrompt(name: string, conversationId?: string): Promise<boolean>;
  /** The prompt builder over the library, with the `workspace` (index) and `files` retrieval adapters. */
  promptBuilder(): Promise<PromptBuilder | undefined>;
  /** The conversation store of the settings (the local sql.js file or the team store), opened on first use. */
  storage(): Promise<ConversationStorage>;
  /** Starts a new, empty conversation. */
  createConversation(metadata?: Record<string, unknown>): Promise<ConversationManager>;
  /** Forgets a conversation's manager (after it was deleted); views redraw. */
  forget(conversationId: string): void;
  /** Runs `work` with the conversation marked busy (see `OpenConversations.whileBusy`). */
  whileBusy<T>(conversationId: string, work: () => Promise<T>): Promise<T>;
}
