/**
 * The shapes of the engine's safety limits, at the core's root so the error classes can name a limit
 * without importing the folders that check it. Defaults and checks live with their users (`templates/promptLimits.ts`).
 */

/**
 * Safety limits on prompt templates, so a hostile `prompts/` folder cannot hang the extension host or
 * exhaust its memory. The defaults are far above any real prompt; each can be set in the library options
 * (the first five, checked when files load) or the builder options (output and time, checked while rendering).
 */
export interface PromptLimits {
  /** Bytes of one prompt file or template text. */
  maxTemplateBytes: number;
  /** `{{` expressions in one template. */
  maxExpressions: number;
  /** Blocks (`{{#if}}`, `{{#each}}`, ...) nested inside each other. */
  maxNestingDepth: number;
  /** Includes nested inside includes (`{{> a}}` whose `a` includes `b` is depth 2). */
  maxPartialDepth: number;
  /** Partials one template expands to, counting every repeated inclusion. */
  maxPartialExpansions: number;
  /** Characters one render produces. */
  maxOutputChars: number;
  /** Milliseconds one render may run. */
  maxRenderMs: number;
}
