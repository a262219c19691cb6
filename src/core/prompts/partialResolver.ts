import { PromptError } from '../errors';
import type { PromptKind, PromptTemplate } from './libraryTypes';
import type { SourceOffset } from '../libraryFiles/fileTypes';
import { DEFAULT_PROMPT_LIMITS, limitError } from '../templates/promptLimits';
import { type PromptLimits } from '../limits';
import { prepareTemplate, rememberBounded, type PartialUse, type PreparedTemplate, type TemplateAnalysis } from '../templates/templateEngine';

/** A template with everything it includes resolved: ready for the builder to compile and render. */
export interface ResolvedTemplate {
  source: string;
  /** Variables of the template and of every partial it includes. */
  analysis: TemplateAnalysis;
  /** The included partials, keyed by the name the templates use. */
  partials: Record<string, PartialSource>;
}

/** One included partial: its prepared source, and its file and position for render errors. */
export interface PartialSource {
  source: string;
  file: string;
  offset: SourceOffset;
}

/** How far a template's includes reach: partials it expands to in all (repeats counted) and the deepest chain. */
interface Reach {
  expansions: number;
  depth: number;
}

const FOLDER_KINDS: Record<string, PromptKind> = { system: 'system', user: 'user', partials: 'partial' };

/**
 * Resolves `{{> name}}` includes to other prompts of the library, refusing names that reach outside
 * `prompts/`, include cycles, and include graphs deeper or larger than the limits (measured before any
 * render, so an expansion bomb is refused at load), and caches each prompt's prepared template.
 */
export class PartialResolver {
  private readonly prepared = new Map<string, PreparedTemplate | PromptError>();
  /** Resolved bodies of library prompts; cleared on every reload, since an included file may have changed. */
  private resolvedBodies = new WeakMap<PromptTemplate, ResolvedTemplate>();

  constructor(
    private readonly lookup: (kind: PromptKind, name: string) => PromptTemplate | undefined,
    private readonly limits: PromptLimits = DEFAULT_PROMPT_LIMITS,
  ) {}

  /** The prepared template of a prompt's text (its body, or one message); throws its syntax error. */
  prepare(prompt: PromptTemplate, text = prompt.template, offset: SourceOffset = prompt.templateOffset): PreparedTemplate {
    const key = `${prompt.path}\0${prompt.sha256}\0${offset.line}:${offset.column}\0${text}`;
    let entry = this.prepared.get(key);
    if (!entry) {
      try {
        entry = prepareTemplate(text, prompt.path, offset, prompt.conditionalSections, this.limits);
      } catch (err) {
        if (!(err instanceof PromptError)) throw err;
        entry = err;
      }
      rememberBounded(this.prepared, key, entry);
    }
    if (entry instanceof PromptError) throw entry;
    return entry;
  }

  /** Finds the prompt a partial name refers to, or throws a `PromptError` at the include's position. */
  resolveName(from: PromptTemplate, use: PartialUse): PromptTemplate {
    const fail = (message: string) => new PromptError(`${from.path}:${use.line}:${use.column}: ${message}`, from.path, use.line, use.column);
    if (use.dynamic) throw fail('dynamic partials `{{> (expression)}}` are not supported: name the partial, e.g. `{{> house-rules}}`');
    const name = use.name;
    const segments = name.split('/');
    if (!name || name.startsWith('/') || name.includes('\\') || /^[A-Za-z]:/.test(name) || segments.some((s) => s === '..' || s === '.' || s === '')) {
      throw fail(`partial "${name}" reaches outside prompts/: name a prompt by its path inside prompts/, e.g. "partials/house-rules"`);
    }
    const candidates: Array<[PromptKind, string]> = [];
    const folderKind = segments.length > 1 ? FOLDER_KINDS[segments[0]] : undefined;
    if (folderKind) candidates.push([folderKind, segments.slice(1).join('/')]);
    for (const kind of ['partial', from.kind === 'partial' ? 'system' : from.kind, 'system', 'user'] as PromptKind[]) {
      candidates.push([kind, name]);
    }
    for (const [kind, n] of candidates) {
      const found = this.lookup(kind, n);
      if (found) return found;
    }
    throw fail(`partial "${name}" was not found: add prompts/partials/${name}.md (or a system/ or user/ prompt of that name)`);
  }

  /**
   * Resolves a template and everything it includes. Throws a `PromptError` for a syntax error, a missing or
   * escaping partial, or an include cycle (naming the chain).
   */
  resolve(prompt: PromptTemplate, text = prompt.template, offset: SourceOffset = prompt.templateOffset): ResolvedTemplate {
    const isBody = text === prompt.template && offset === prompt.templateOffset;
    const known = isBody ? this.resolvedBodies.get(prompt) : undefined;
    if (known) return known;
    const resolved = this.resolveUncached(prompt, text, offset);
    if (isBody) this.resolvedBodies.set(prompt, resolved);
    return resolved;
  }

  private resolveUncached(prompt: PromptTemplate, text: string, offset: SourceOffset): ResolvedTemplate {
    const root = this.prepare(prompt, text, offset);
    this.checkReach(prompt, root);
    const required = new Set(root.analysis.required);
    const optional = new Set(root.analysis.optional);
    const partials: Record<string, PartialSource> = {};
    // Each (partial, context) is visited once: the include graph is a DAG here (cycles were refused), but may be wide.
    const visited = new Set<string>();
    const visit = (owner: PromptTemplate, prepared: PreparedTemplate, context: PartialUse['context']) => {
      for (const use of prepared.analysis.partials) {
        const target = this.resolveName(owner, use);
        const inner = this.prepare(target);
        partials[use.name] = { source: inner.source, file: target.path, offset: target.templateOffset };
        const ctx = context === 'none' || use.context === 'none' ? 'none' : context === 'optional' || use.context === 'optional' ? 'optional' : 'required';
        const key = `${target.path}\0${ctx}`;
        if (visited.has(key)) continue;
        visited.add(key);
        if (ctx !== 'none') {
          inner.analysis.required.forEach((v) => (ctx === 'required' ? required : optional).add(v));
          inner.analysis.optional.forEach((v) => optional.add(v));
        }
        visit(target, inner, ctx);
      }
    };
    visit(prompt, root, 'required');
    for (const r of required) optional.delete(r);
    return {
      source: root.source,
      analysis: { required: [...required], optional: [...optional], partials: root.analysis.partials, unknownHelpers: root.analysis.unknownHelpers },
      partials,
    };
  }

  /**
   * Refuses include cycles, and includes that nest deeper than `maxPartialDepth` or expand to more than
   * `maxPartialExpansions` partials, at the root's include that leads there. Each partial is measured once.
   */
  private checkReach(prompt: PromptTemplate, root: PreparedTemplate): void {
    const { maxPartialDepth, maxPartialExpansions } = this.limits;
    const memo = new Map<PromptTemplate, Reach>();
    /** How far one include reaches (the partial itself counted); `chain` ends with its owner. */
    const measure = (owner: PromptTemplate, use: PartialUse, chain: PromptTemplate[]): Reach => {
      const target = this.resolveName(owner, use);
      if (chain.includes(target)) {
        const names = [...chain.slice(chain.indexOf(target)), target].map((p) => p.path).join(' → ');
        throw new PromptError(`${owner.path}:${use.line}:${use.column}: include cycle: ${names}; remove one of these {{> }} includes`, owner.path, use.line, use.column);
      }
      let inner = memo.get(target);
      if (!inner) {
        // Past the depth limit the answer is known: stop descending (and recursing) there.
        inner = chain.length > maxPartialDepth ? { expansions: 0, depth: Infinity } : reachOf(target, this.prepare(target), [...chain, target]);
        memo.set(target, inner);
      }
      return { expansions: 1 + inner.expansions, depth: 1 + inner.depth };
    };
    const reachOf = (owner: PromptTemplate, prepared: PreparedTemplate, chain: PromptTemplate[]): Reach => {
      const total: Reach = { expansions: 0, depth: 0 };
      for (const use of prepared.analysis.partials) {
        const r = measure(owner, use, chain);
        total.expansions = Math.min(total.expansions + r.expansions, maxPartialExpansions + 1);
        total.depth = Math.max(total.depth, r.depth);
      }
      return total;
    };
    let expansions = 0;
    for (const use of root.analysis.partials) {
      const r = measure(prompt, use, [prompt]);
      expansions += r.expansions;
      if (r.depth > maxPartialDepth) {
        throw limitError('maxPartialDepth', maxPartialDepth, `{{> ${use.name}}} nests includes more than ${maxPartialDepth} deep`, prompt.path, use.line, use.column);
      }
      if (expansions > maxPartialExpansions) {
        throw limitError('maxPartialExpansions', maxPartialExpansions, `with {{> ${use.name}}} the template expands to more than ${maxPartialExpansions} partials`, prompt.path, use.line, use.column);
      }
    }
  }

  /** Drops cached preparations of files that are gone or changed. */
  prune(live: Set<string>): void {
    this.resolvedBodies = new WeakMap();
    for (const key of this.prepared.keys()) {
      const [path, sha] = key.split('\0');
      if (!live.has(`${path}\0${sha}`)) this.prepared.delete(key);
    }
  }
}
