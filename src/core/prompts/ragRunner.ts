import { PromptError, PromptLimitError } from '../errors';
import { fenceFor } from '../markdownFence';
import { sha256Hex } from '../hashes';
import { DEFAULT_PROMPT_LIMITS, scanTemplateText } from '../templates/promptLimits';
import { type PromptLimits } from '../limits';
import { RenderBudget } from './renderBudget';
import { parseTemplate } from '../templates/templateEngine';
import type { RagAdapter, RagResultItem } from '../rag/ragAdapter';
import type { RagConfig, RagMetadata } from '../promptContracts';

/** Placeholder a retrieval config fills when it names none. */
export const DEFAULT_RAG_PLACEHOLDER = 'RAG_CONTENT';
/** Results asked of an adapter when a config gives no `k`. */
export const DEFAULT_RAG_K = 5;

/**
 * Item template used when a config has none: where the piece comes from (`path:startLine-endLine`) and the
 * content in a fenced code block whose fence is longer than any backtick run inside it.
 */
export const DEFAULT_ITEM_TEMPLATE =
  '{{#if path}}{{path}}{{#if startLine}}:{{startLine}}-{{endLine}}{{/if}}\n{{/if}}{{fence}}{{lang}}\n{{content}}\n{{fence}}\n';

/** What `runRagConfigs` needs besides the configs. */
export interface RagRunOptions {
  adapters: Record<string, RagAdapter>;
  /** Values the query templates are rendered over (the prompt's params with defaults). */
  values: Record<string, unknown>;
  cachedRag?: RagMetadata[];
  raiseOnRagError: boolean;
  now: () => Date;
  /** Limits on rendering the configs' query, header and item templates (default `DEFAULT_PROMPT_LIMITS`). */
  limits?: PromptLimits;
  /** The prompt the configs belong to, named in limit errors. */
  source?: string;
}

/** Checks a template of a retrieval config against the limits before it renders (a config file may be as hostile as a prompt). */
function checkTemplate(template: string, limits: PromptLimits, source: string): void {
  const offset = { line: 1, column: 0 };
  scanTemplateText(template, source, offset, limits);
  parseTemplate(template, source, offset, limits);
}

/** Renders one template of a retrieval config under the limits. */
function renderBounded(template: string, values: Record<string, unknown>, limits: PromptLimits, source: string): string {
  checkTemplate(template, limits, source);
  return new RenderBudget(limits, source, { line: 1, column: 0 }).render(template, values, {});
}

/** Per placeholder: the text to insert, the metadata to keep, and warnings for failed retrievals. */
export interface RagRunResult {
  placeholders: Record<string, string>;
  metadata: Record<string, RagMetadata>;
  warnings: string[];
}

/** The hash a cached retrieval is found by: sha256 hex of `adapter:query`. */
export function ragQueryHash(adapter: string, query: string): string {
  return sha256Hex(`${adapter}:${query}`);
}

/** Renders a config's query over the params; the one rendering used both to look up the cache and to search. */
export function renderRagQuery(config: RagConfig, values: Record<string, unknown>, limits: PromptLimits = DEFAULT_PROMPT_LIMITS): string {
  return renderBounded(config.query, values, limits, `rag query "${config.query.slice(0, 80)}"`).trim();
}

const LANGS: Record<string, string> = {
  ts: 'typescript', tsx: 'tsx', js: 'javascript', jsx: 'jsx', mjs: 'javascript', cjs: 'javascript', py: 'python',
  rs: 'rust', go: 'go', java: 'java', kt: 'kotlin', cs: 'csharp', c: 'c', h: 'c', cpp: 'cpp', hpp: 'cpp', rb: 'ruby',
  php: 'php', swift: 'swift', sh: 'bash', md: 'markdown', json: 'json', yaml: 'yaml', yml: 'yaml', html: 'html',
  css: 'css', sql: 'sql', toml: 'toml', xml: 'xml', vue: 'vue', svelte: 'svelte',
};

/** Formats results into a placeholder's text: the header, then each result through the item template. */
export function formatRagResults(
  config: RagConfig,
  results: RagResultItem[],
  values: Record<string, unknown> = {},
  limits: PromptLimits = DEFAULT_PROMPT_LIMITS,
  source = `rag config "${config.adapter}"`,
): string {
  if (results.length === 0) return '';
  // Each template is checked once, and the header and every item share one budget: a placeholder's
  // whole text is held to the output and time limits, not each item on its own.
  const itemTemplate = config.itemTemplate ?? DEFAULT_ITEM_TEMPLATE;
  checkTemplate(itemTemplate, limits, source);
  if (config.header) checkTemplate(config.header, limits, source);
  const budget = new RenderBudget(limits, source, { line: 1, column: 0 });
  const item = (v: Record<string, unknown>) => budget.render(itemTemplate, v, {});
  const parts = results.map((r, i) => {
    const ext = r.path ? /\.([A-Za-z0-9]+)$/.exec(r.path)?.[1]?.toLowerCase() : undefined;
    return item({
      index: i + 1,
      content: r.content,
      score: r.score,
      path: r.path,
      startLine: r.startLine,
      endLine: r.endLine ?? r.startLine,
      metadata: r.metadata,
      fence: fenceFor(r.content),
      lang: ext ? (LANGS[ext] ?? ext) : '',
    });
  });
  const header = config.header ? budget.render(config.header, { ...values, count: results.length }, {}) : '';
  const body = parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('\n');
  return (header ? (header.endsWith('\n') ? header : `${header}\n`) : '') + body.replace(/\n+$/, '\n');
}

/**
 * Runs every retrieval config at once. A config whose placeholder and query hash match an entry of
 * `cachedRag` reuses it without searching. An unknown or failing adapter leaves its placeholder empty and
 * adds a warning, or throws a `PromptError` when `raiseOnRagError` is set.
 */
export async function runRagConfigs(configs: RagConfig[], options: RagRunOptions): Promise<RagRunResult> {
  const result: RagRunResult = { placeholders: {}, metadata: {}, warnings: [] };
  const outcomes = await Promise.all(
    configs.map(async (config) => {
      const placeholder = config.placeholder ?? DEFAULT_RAG_PLACEHOLDER;
      try {
        return { placeholder, meta: await runOne(config, placeholder, options) };
      } catch (err) {
        // A template past a limit is the prompt's fault, not the adapter's: it fails the render, typed.
        if (err instanceof PromptLimitError) throw err;
        const message = `retrieval for {{${placeholder}}} with adapter "${config.adapter}" failed: ${(err as Error).message}`;
        if (options.raiseOnRagError) throw new PromptError(message);
        return { placeholder, warning: `${message}; the placeholder is left empty` };
      }
    }),
  );
  for (const o of outcomes) {
    if (o.meta) {
      result.metadata[o.placeholder] = o.meta;
      result.placeholders[o.placeholder] = o.meta.formattedContent;
    } else {
      result.placeholders[o.placeholder] ??= '';
      if (o.warning) result.warnings.push(o.warning);
    }
  }
  return result;
}

async function runOne(config: RagConfig, placeholder: string, options: RagRunOptions): Promise<RagMetadata> {
  const limits = options.limits ?? DEFAULT_PROMPT_LIMITS;
  const query = renderRagQuery(config, options.values, limits);
  const queryHash = ragQueryHash(config.adapter, query);
  const cached = options.cachedRag?.find((m) => m.placeholder === placeholder && m.queryHash === queryHash);
  if (cached) return cached;
  if (!query) throw new Error(`the query "${config.query}" rendered empty: pass the params it uses`);
  const adapter = options.adapters[config.adapter];
  if (!adapter) {
    const known = Object.keys(options.adapters);
    throw new Error(`no adapter named "${config.adapter}" is registered (known: ${known.length ? known.join(', ') : 'none'})`);
  }
  const k = config.k ?? DEFAULT_RAG_K;
  const results = await adapter.search(query, k, config.filters);
  return {
    placeholder,
    adapter: config.adapter,
    query,
    queryHash,
    k,
    results,
    formattedContent: formatRagResults(config, results, options.values, limits, options.source),
    timestamp: options.now().toISOString(),
  };
}
