import { PromptError, PromptLimitError, PromptValidationError } from '../errors';
import type { FileSystemPromptLibrary } from './fileSystemPromptLibrary';
import { sha256Hex } from '../hashes';
import type { PromptKind, PromptTemplate, ValidationLevel } from './libraryTypes';
import type { PromptParam } from '../libraryFiles/fileTypes';
import type { ResolvedTemplate } from './partialResolver';
import { DEFAULT_RAG_PLACEHOLDER, runRagConfigs } from './ragRunner';
import type { RagAdapter } from '../rag/ragAdapter';
import { resolvePromptLimits, type RenderLimits } from '../templates/promptLimits';
import { type PromptLimits } from '../limits';
import { RenderBudget } from './renderBudget';
import type {
  ConversationPromptBuilder,
  PromptModelSettings,
  RagConfig,
  RenderOptions,
  RenderResult,
} from '../promptContracts';

/** Options of `PromptBuilder`. */
export interface PromptBuilderOptions {
  /** Retrieval adapters by the name configs use (`workspace`, `files`, ...). */
  adapters?: Record<string, RagAdapter>;
  /** Level for prompts that set none (default `warn`). */
  defaultValidation?: ValidationLevel;
  /** Throw when an adapter fails or is unknown instead of leaving the placeholder empty with a warning. */
  raiseOnRagError?: boolean;
  /** Clock for `current_date` and retrieval timestamps. */
  now?: () => Date;
  /** Extra system values for every template (the extension gives `selection`, `file`, `language`, `workspaceFolder`). */
  systemValues?: Record<string, unknown> | (() => Record<string, unknown>);
  /** Output size and time limits of one render; unset ones come from the library's `limits`, then the defaults. */
  limits?: Partial<RenderLimits>;
}

/** Render options of this builder: the manager's options plus per-call system values and validation level. */
export interface PromptRenderOptions extends RenderOptions {
  systemValues?: Record<string, unknown>;
  /** Overrides the builder's default level for prompts that set none. */
  validation?: ValidationLevel;
}

/** A rendered `prompts/messages/` prompt: its messages instead of one content. */
export interface MessagesRenderResult extends Omit<RenderResult, 'content'> {
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
}

/** Everything one render needs, whether the prompt comes from a file or is inline. */
interface RenderJob {
  name: string;
  prompt?: PromptTemplate;
  templates: ResolvedTemplate[];
  params: PromptParam[];
  validation?: ValidationLevel;
  ragConfigs: RagConfig[];
  unknownRag: string[];
  settings?: PromptModelSettings;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Renders the library's prompts with Handlebars (values inserted as text, never HTML-escaped): merges
 * defaults under the given params, adds system values, validates required params at the prompt's level, runs
 * its retrieval configs in parallel (reusing cached results by query hash) and records which file version
 * produced the text.
 */
export class PromptBuilder implements ConversationPromptBuilder {
  private readonly adapters: Record<string, RagAdapter>;
  private readonly defaultValidation: ValidationLevel;
  private readonly raiseOnRagError: boolean;
  private readonly now: () => Date;
  private readonly limits: PromptLimits;

  constructor(
    private readonly library: FileSystemPromptLibrary,
    private readonly options: PromptBuilderOptions = {},
  ) {
    this.adapters = options.adapters ?? {};
    this.defaultValidation = options.defaultValidation ?? 'warn';
    this.raiseOnRagError = options.raiseOnRagError ?? false;
    this.now = options.now ?? (() => new Date());
    this.limits = resolvePromptLimits(options.limits, library.limits);
  }

  renderSystemPrompt(name: string, options: PromptRenderOptions = {}): Promise<RenderResult> {
    return this.renderNamed('system', name, options);
  }

  renderUserPrompt(name: string, options: PromptRenderOptions = {}): Promise<RenderResult> {
    return this.renderNamed('user', name, options);
  }

  renderInlineSystemPrompt(content: string, options: PromptRenderOptions = {}): Promise<RenderResult> {
    return this.renderInline('system', content, options);
  }

  renderInlineUserPrompt(content: string, options: PromptRenderOptions = {}): Promise<RenderResult> {
    return this.renderInline('user', content, options);
  }

  /** Renders every message of a `prompts/messages/` prompt with the same params and retrievals. */
  async renderMessagesPrompt(name: string, options: PromptRenderOptions = {}): Promise<MessagesRenderResult> {
    const prompt = this.find('messages', name);
    const messages = prompt.messages ?? [];
    const templates = messages.map((m) => this.library.resolveTemplate(prompt, m.content, m.offset));
    const { contents, ...rest } = await this.render(this.jobFor(prompt, templates, options), options);
    return { ...rest, messages: messages.map((m, i) => ({ role: m.role, content: contents[i] })) };
  }

  /**
   * Parameters a caller must give: those declared required, plus those the template uses outside conditions
   * that have no default (strict-ish detection). Looks in user, then system, then messages prompts.
   */
  getRequiredParameters(name: string, kind?: PromptKind): string[] {
    const prompt = kind
      ? this.find(kind, name)
      : (this.library.getUserPrompt(name) ?? this.library.getSystemPrompt(name) ?? this.find('messages', name));
    const templates =
      prompt.kind === 'messages'
        ? (prompt.messages ?? []).map((m) => this.library.resolveTemplate(prompt, m.content, m.offset))
        : [this.library.resolveTemplate(prompt)];
    const placeholders = new Set(this.library.ragConfigsOf(prompt).configs.map((c) => c.placeholder ?? DEFAULT_RAG_PLACEHOLDER));
    return requiredParams(prompt.params, templates, placeholders, new Set(Object.keys(this.systemValues({}))));
  }

  private async renderNamed(kind: 'system' | 'user', name: string, options: PromptRenderOptions): Promise<RenderResult> {
    const prompt = this.find(kind, name);
    const job = this.jobFor(prompt, [this.library.resolveTemplate(prompt)], options);
    const { contents, ...rest } = await this.render(job, options);
    return { content: contents[0], ...rest };
  }

  private async renderInline(kind: 'system' | 'user', content: string, options: PromptRenderOptions): Promise<RenderResult> {
    const pseudo: PromptTemplate = {
      name: `<inline ${kind} prompt>`,
      kind,
      path: `<inline ${kind} prompt>`,
      absolutePath: '',
      sha256: sha256Hex(content),
      gitBlobId: '',
      template: content,
      templateOffset: { line: 1, column: 0 },
      conditionalSections: false,
      params: [],
      rag: [],
      settings: {},
    };
    const job: RenderJob = {
      name: pseudo.name,
      templates: [this.library.resolveTemplate(pseudo)],
      params: [],
      ragConfigs: options.ragConfigs ?? [],
      unknownRag: [],
    };
    const { contents, ...rest } = await this.render(job, options);
    return { content: contents[0], ...rest };
  }

  private jobFor(prompt: PromptTemplate, templates: ResolvedTemplate[], options: RenderOptions): RenderJob {
    const rag = this.library.ragConfigsOf(prompt);
    return {
      name: prompt.name,
      prompt,
      templates,
      params: prompt.params,
      validation: prompt.validation,
      ragConfigs: [...rag.configs, ...(options.ragConfigs ?? [])],
      unknownRag: rag.unknown,
      settings: prompt.settings,
    };
  }

  private find(kind: PromptKind, name: string): PromptTemplate {
    const prompt =
      kind === 'system'
        ? this.library.getSystemPrompt(name)
        : kind === 'user'
          ? this.library.getUserPrompt(name)
          : kind === 'messages'
            ? this.library.getMessagePrompt(name)
            : kind === 'partial'
              ? this.library.getPartial(name)
              : undefined;
    if (prompt) return prompt;
    const refused = this.library.loadError(kind, name);
    if (refused) throw refused;
    const folder = kind === 'partial' ? 'partials' : kind;
    const available = this.library
      .listPrompts()
      .filter((p) => p.kind === kind)
      .map((p) => p.name);
    const broken = this.library.diagnostics().find((d) => d.severity === 'error' && d.file.startsWith(`${folder}/${name}.`));
    throw new PromptError(
      broken
        ? `${kind} prompt "${name}" could not be loaded: ${broken.file}:${broken.line}:${broken.column}: ${broken.message}`
        : `there is no ${kind} prompt named "${name}" in ${folder}/ (available: ${available.length ? available.join(', ') : 'none'})`,
      broken?.file,
      broken?.line,
      broken?.column,
    );
  }

  /** System values of this moment: the date values, the builder's extras, then the call's extras. */
  private systemValues(options: PromptRenderOptions): Record<string, unknown> {
    const now = this.now();
    const extra = typeof this.options.systemValues === 'function' ? this.options.systemValues() : this.options.systemValues;
    return {
      current_date: `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`,
      current_datetime: now.toISOString(),
      current_year: now.getFullYear(),
      ...extra,
      ...options.systemValues,
    };
  }

  private async render(job: RenderJob, options: PromptRenderOptions): Promise<Omit<RenderResult, 'content'> & { contents: string[] }> {
    const defaults: Record<string, unknown> = {};
    for (const p of job.params) if (p.default !== undefined) defaults[p.name] = p.default;
    const given = options.params ?? {};
    const system = this.systemValues(options);
    // The editor's values beat a prompt's defaults; what the caller passes beats both.
    const values: Record<string, unknown> = { ...defaults, ...system, ...given };
    const paramsUsed = Object.fromEntries(Object.keys({ ...defaults, ...given }).map((k) => [k, values[k]]));

    const placeholders = new Set(job.ragConfigs.map((c) => c.placeholder ?? DEFAULT_RAG_PLACEHOLDER));
    const required = requiredParams(job.params, job.templates, placeholders, new Set(Object.keys(system)));
    const missing = required.filter((name) => values[name] === undefined || values[name] === null);
    const level = job.validation ?? options.validation ?? this.defaultValidation;
    const warnings: string[] = [];
    if (missing.length && level === 'error') {
      const where = job.prompt ? `prompt "${job.name}" (${job.prompt.path})` : job.name;
      throw new PromptValidationError(
        `${where} is missing required parameter${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')}: pass ${missing.length > 1 ? 'them' : 'it'} in params or give ${missing.length > 1 ? 'them' : 'it'} a default`,
        missing,
        job.name,
      );
    }
    if (level === 'warn') for (const m of missing) warnings.push(`missing required parameter "${m}"`);

    for (const ref of options.includeRag === false ? [] : job.unknownRag) {
      const message = `rag config "${ref}" was not found in rag/`;
      if (this.raiseOnRagError) throw new PromptError(`${message}: add prompts/rag/${ref}.yaml or fix the name`);
      warnings.push(`${message}; nothing was retrieved for it`);
    }
    const rag =
      options.includeRag === false || job.ragConfigs.length === 0
        ? { placeholders: Object.fromEntries([...placeholders].map((p) => [p, ''])), metadata: {}, warnings: [] as string[] }
        : await runRagConfigs(job.ragConfigs, {
            adapters: this.adapters,
            values,
            cachedRag: options.cachedRag,
            raiseOnRagError: this.raiseOnRagError,
            now: this.now,
            limits: this.limits,
            source: job.prompt?.path ?? job.name,
          });
    warnings.push(...rag.warnings);

    const context = { ...values, ...rag.placeholders };
    const contents = job.templates.map((t, i) => {
      const file = job.prompt?.path ?? job.name;
      const offset = job.prompt?.messages?.[i]?.offset ?? job.prompt?.templateOffset ?? { line: 1, column: 0 };
      try {
        return new RenderBudget(this.limits, file, offset).render(t.source, context, t.partials);
      } catch (err) {
        if (err instanceof PromptLimitError) throw err;
        throw new PromptError(`${file}: rendering failed: ${(err as Error).message}`, job.prompt?.path);
      }
    });

    const result: Omit<RenderResult, 'content'> & { contents: string[] } = {
      contents,
      paramsUsed,
      paramsMissing: missing,
      validationWarnings: warnings,
    };
    if (options.returnRagMetadata) result.ragMetadata = rag.metadata;
    if (job.prompt) {
      const p = job.prompt;
      result.prompt = { name: p.name, path: p.path, sha256: p.sha256, gitBlobId: p.gitBlobId };
      if (job.settings && Object.keys(job.settings).length) result.settings = job.settings;
      if (p.output) result.output = structuredClone(p.output);
    }
    return result;
  }
}

/** Declared-required params, plus params used outside conditions that have no default and are not declared optional. */
function requiredParams(params: PromptParam[], templates: ResolvedTemplate[], placeholders: Set<string>, system: Set<string>): string[] {
  const declared = new Map(params.map((p) => [p.name, p]));
  const out = new Set<string>();
  for (const p of params) if (p.required) out.add(p.name);
  for (const t of templates) {
    for (const v of t.analysis.required) {
      const p = declared.get(v);
      if (placeholders.has(v) || system.has(v) || p?.required === false || p?.default !== undefined) continue;
      out.add(v);
    }
  }
  return [...out];
}
