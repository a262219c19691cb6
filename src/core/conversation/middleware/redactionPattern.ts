/** The shape of one secret pattern, shared by the redaction middleware and the gitleaks rules it runs. */

/** One kind of secret to mask. `pattern` must be global (`/…/g`). */
export interface RedactionPattern {
  /** Shown in the mask, e.g. `[REDACTED:aws-access-key]`. */
  name: string;
  pattern: RegExp;
  /**
   * Replacement text; may use `$1`… to keep a captured prefix such as `api_key=`, or be a function
   * as `String.prototype.replace` takes one. Defaults to `[REDACTED:<name>]`.
   */
  replacement?: string | ((match: string, ...rest: unknown[]) => string);
  /** Lower-case words one of which the text must hold for the pattern to run (a cheap filter). */
  keywords?: readonly string[];
}
