/**
 * The `/` menu of one chat: the workspace's prompts and flows, then other tools' prompt files, posted
 * to the webview again whenever any of them changes; and the versions prompt messages compare their
 * template with (their chips say when the file changed since).
 */
import type { PromptFolderLibrary, ForeignPromptSet } from '../../core/index';
import type { ToWebview } from '../../shared/protocol';
import { promptSummaries } from './chatView';
import { flowSummaries } from './flowView';
import { foreignPromptSummaries, reservedPromptNames, withForeignVersions } from '../prompts/foreignPromptSend';
import { Disposable, toDisposable } from '../base/lifecycle';
import { promptVersionLookup, type PromptVersionLookup } from '../conversations/promptMessages';
import type { ChatServices } from './chatServices';

/** What the list posts to and redraws. */
export interface ChatPromptListDeps {
  services: ChatServices;
  post(message: ToWebview): void;
  /** Redraws the chat (its prompt messages' version chips). */
  postState(): Promise<void>;
  /** Re-sends the chat's options (their system prompt list follows the library). */
  postOptions(): Promise<void>;
}

/** See the file's header. */
export class ChatPromptList extends Disposable {
  private library?: PromptFolderLibrary;
  private foreignSet?: ForeignPromptSet;
  private librarySub?: { dispose(): void };

  constructor(private readonly deps: ChatPromptListDeps) {
    super();
    this._register(toDisposable(() => this.librarySub?.dispose()));
  }

  /** How prompt messages find the template versions they were made with (none in Restricted Mode). */
  versions(): PromptVersionLookup | undefined {
    const trusted = this.deps.services.trusted;
    return withForeignVersions(promptVersionLookup(trusted ? this.library : undefined), trusted ? this.foreignSet : undefined);
  }

  /** Posts the `/` menu's entries (an empty list when they cannot be read, with the reason in the log). */
  async post(): Promise<void> {
    const { services } = this.deps;
    try {
      const library = services.trusted ? await services.promptLibrary() : undefined;
      this.follow(library);
      const own = library?.listPrompts() ?? [];
      // Other tools' prompt files follow the library's; a name the library has already is offered as `copilot:name`.
      const foreign = await services.foreignPrompts.list(reservedPromptNames(own));
      const changed = foreign !== this.foreignSet;
      this.foreignSet = foreign;
      this.deps.post({ type: 'prompts', prompts: [...promptSummaries(own), ...flowSummaries(library?.listFlows() ?? []), ...foreignPromptSummaries(foreign.prompts)] });
      // Their messages' chips say whether the file changed since: redraw them with the versions just read.
      if (changed) void this.deps.postState();
    } catch (err) {
      services.logger.warn('Could not list prompts', err);
      this.deps.post({ type: 'prompts', prompts: [] });
    }
  }

  /**
   * Re-sends the list when the library's files change. One subscription, moved to each new library: the
   * library is often opened before the panel (for diagnostics), so its load event alone would miss it,
   * and subscribing on every load kept the old libraries' listeners.
   */
  private follow(library: PromptFolderLibrary | undefined): void {
    if (library === this.library || this.isDisposed) return;
    this.librarySub?.dispose();
    this.library = library;
    // Prompt messages say whether their template changed since: each library, and each change of it, redraws them.
    this.librarySub = library?.onDidChange(() => {
      void this.post();
      void this.deps.postOptions();
      void this.deps.postState();
    });
    if (library) void this.deps.postState();
  }
}
