/**
 * The views several parts of the chat protocol share (an attachment, an image, an error with its fix
 * buttons), in a file of their own so that the feature protocols (`severalProtocol.ts`, …) and
 * `protocol.ts`, which gathers them all, import them without importing each other.
 */

/** Something attached to a message as context: a file, a line range of one, or the editor's selection. */
export interface Attachment {
  readonly kind: 'file' | 'selection';
  /** Workspace-relative path with `/` separators. */
  readonly path: string;
  /** 1-based inclusive lines; absent for a whole file. */
  readonly startLine?: number;
  readonly endLine?: number;
  readonly language?: string;
  /** The file is one the workspace's rules leave out (gitignored, excluded…): read only because the user picked it. */
  readonly ignored?: boolean;
  /** The text itself, for selections. Files are read by the host when the message is sent. */
  readonly text?: string;
}

/** An image in the composer or on a message, shown from a `data:` URL (the CSP allows only `data:` images). */
export interface ImageView {
  readonly name: string;
  readonly mime: string;
  /** `data:<mime>;base64,...` */
  readonly dataUrl: string;
  readonly width?: number;
  readonly height?: number;
}

/** The commands an error may offer as buttons; the host runs only these (`arbor.firstRun.*`: the choice when no model server answers). */
export type ErrorActionCommand =
  | 'arbor.setOpenAIKey'
  | 'arbor.selectModel'
  | 'arbor.raiseContextWindow'
  | 'arbor.chooseTools'
  | 'arbor.openSettings'
  | 'arbor.setTeamStorePassword'
  | 'arbor.firstRun.startTour'
  | 'arbor.firstRun.useOllama'
  | 'arbor.firstRun.useOpenAICompatible';

/** A button on an error that runs the fix (Set OpenAI API Key, Select Model, Open Settings). */
export interface ErrorAction {
  readonly command: ErrorActionCommand;
  readonly title: string;
}

/** A provider failure as the chat shows it, with the fix in the message. */
export interface ErrorView {
  readonly message: string;
  readonly kind: string;
  readonly retryable: boolean;
  /** Buttons beside Retry that run the fix. */
  readonly actions?: readonly ErrorAction[];
}
