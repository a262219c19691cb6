/**
 * Reads workspace files for attachments and context chips through the engine's `WorkspaceFiles`,
 * only inside the workspace folders and never following a link out of them. Pure (no `vscode`).
 */
import { WorkspaceAccessError, type FilesAdapter } from '../../core/index';
import type { WorkspaceFiles } from '../../core/index';
import type { Attachment } from '../../shared/protocol';
import { isInside, resolveInWorkspace, sliceLines, type ResolvedAttachment } from '../base/workspacePaths';

/** Largest attached file read whole, in bytes; larger files are cut with a note. */
export const MAX_ATTACHMENT_BYTES = 200_000;

/** Workspace-relative reads, refused outside the workspace. */
export class WorkspaceFileReader {
  /**
   * `adapter` is the engine's files adapter of the current settings: it refuses what is never sent to
   * a model (secrets, `.git`, links to either) and says why the workspace's rules would leave a file
   * out (gitignored, excluded…), so a file the user picks anyway is read and marked `ignored`.
   */
  constructor(
    private readonly files: WorkspaceFiles,
    private readonly folders: () => string[],
    private readonly adapter: () => FilesAdapter,
    /** The language of a file by its name, for attachments that do not say theirs (`#file`). */
    private readonly languageOf: (relPath: string) => string | undefined = () => undefined,
  ) {}

  /** The absolute path of a workspace file; `WorkspaceAccessError` when it is outside the workspace. */
  async resolve(relPath: string): Promise<string> {
    const folders = this.folders();
    const abs = resolveInWorkspace(folders, relPath);
    if (!abs) {
      throw new WorkspaceAccessError(`"${relPath}" is not inside the workspace folders, so Arbor will not read it.`, relPath);
    }
    if (this.files.realPath) {
      const real = await this.files.realPath(abs).catch(() => abs);
      const realFolders = await Promise.all(folders.map((f) => this.files.realPath!(f).catch(() => f)));
      if (!realFolders.some((f) => isInside(f, real))) {
        throw new WorkspaceAccessError(`"${relPath}" links outside the workspace folders, so Arbor will not read it.`, relPath);
      }
    }
    return abs;
  }

  /** The text of a workspace file; secret files are refused with a `WorkspaceAccessError`. */
  async readText(relPath: string): Promise<string> {
    return (await this.read(relPath)).text;
  }

  /** Reads a picked file after the engine's access check, with the reason the index would leave it out. */
  private async read(relPath: string): Promise<{ text: string; ignored: boolean }> {
    const abs = await this.resolve(relPath);
    const ignored = (await this.adapter().ignoredReason(relPath)) !== undefined;
    const bytes = await this.files.readFile(abs);
    const cut = bytes.byteLength > MAX_ATTACHMENT_BYTES;
    const text = new TextDecoder('utf-8').decode(cut ? bytes.subarray(0, MAX_ATTACHMENT_BYTES) : bytes);
    return { text: cut ? `${text}\n[… cut at ${MAX_ATTACHMENT_BYTES} bytes]` : text, ignored };
  }

  /** The bytes of a workspace file the user picked (an image attached with the file picker), after the same access check. */
  async readBytes(relPath: string): Promise<Uint8Array> {
    return this.files.readFile(await this.resolve(relPath));
  }

  /** Attachments with their text: selections keep theirs, files (or ranges of them) are read now. */
  async resolveAttachments(attachments: readonly Attachment[]): Promise<ResolvedAttachment[]> {
    return Promise.all(
      attachments.map(async (a) => {
        if (a.text !== undefined) return { ...a, text: a.text };
        const { text, ignored } = await this.read(a.path);
        const language = a.language ?? this.languageOf(a.path);
        return { ...a, ...(language ? { language } : {}), ...(ignored ? { ignored: true } : {}), text: sliceLines(text, a.startLine, a.endLine) };
      }),
    );
  }
}
