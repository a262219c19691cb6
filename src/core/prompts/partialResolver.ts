import { PromptError } from '../errors';
import type { PromptKind, PromptTemplate, SourceOffset } from './libraryTypes';
import { prepareTemplate, rememberBounded, type PartialUse, type PreparedTemplate, type TemplateAnalysis } from './templateEngine';

/** A template with everything it includes resolved: ready for the builder to compile and render. */
export interface ResolvedTemplate {
  source: string;
  /** Variables of the template and of every partial it includes. */
  analysis: TemplateAnalysis;
  /** Sources of the included partials, keyed by the name the templates use. */
  partials: Record<string, string>;
}

const FOLDER_KINDS: Record<string, PromptKind> = { system: 'system', user: 'user', partials: 'partial' };

/**
 * Resolves `{{> name}}` includes to other prompts of the library, refusing names that reach outside
 * `prompts/` and include cycles, and caches each prompt's prepared (checked and converted) template.
 */
export class PartialResolver {
  private readonly prepared = new Map<string, PreparedTemplate | PromptError>();
  /** Resolved bodies of library prompts; cleared on every reload, since an included file may have changed. */
  private resolvedBodies = new WeakMap<PromptTemplate, ResolvedTemplate>();

  constructor(private readonly lookup: (kind: PromptKind, name: string) => PromptTemplate | undefined) {}

  /** The prepared template of a prompt's text (its body, or one message); throws its syntax error. */
  prepare(prompt: PromptTemplate, text = prompt.template, offset: SourceOffset = prompt.templateOffset): PreparedTemplate {
    const key = `${prompt.path}\0${prompt.sha256}\0${offset.line}:${offset.column}\0${text}`;
    let entry = this.prepared.get(key);
    if (!entry) {
      try {
        entry = prepareTemplate(text, prompt.path, offset, prompt.conditionalSections);
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
    const required = new Set(root.analysis.required);
    const optional = new Set(root.analysis.optional);
    const partials: Record<string, string> = {};
    const visit = (owner: PromptTemplate, prepared: PreparedTemplate, chain: PromptTemplate[], context: PartialUse['context']) => {
      for (const use of prepared.analysis.partials) {
        const target = this.resolveName(owner, use);
        if (chain.includes(target)) {
          const names = [...chain.slice(chain.indexOf(target)), target].map((p) => p.path).join(' → ');
          throw new PromptError(
            `${owner.path}:${use.line}:${use.column}: include cycle: ${names}; remove one of these {{> }} includes`,
            owner.path,
            use.line,
            use.column,
          );
        }
        const inner = this.prepare(target);
        partials[use.name] = inner.source;
        const ctx = context === 'none' || use.context === 'none' ? 'none' : context === 'optional' || use.context === 'optional' ? 'optional' : 'required';
        if (ctx !== 'none') {
          inner.analysis.required.forEach((v) => (ctx === 'required' ? required : optional).add(v));
          inner.analysis.optional.forEach((v) => optional.add(v));
        }
        visit(target, inner, [...chain, target], ctx);
      }
    };
    visit(prompt, root, [prompt], 'required');
    for (const r of required) optional.delete(r);
    return {
      source: root.source,
      analysis: { required: [...required], optional: [...optional], partials: root.analysis.partials, unknownHelpers: root.analysis.unknownHelpers },
      partials,
    };
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
