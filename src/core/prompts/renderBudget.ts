import type Handlebars from 'handlebars';
import type { PromptLimitName } from '../errors';
import type { SourceOffset } from '../libraryFiles/fileTypes';
import type { PartialSource } from './partialResolver';
import { limitError, type RenderLimits } from '../templates/promptLimits';
import { compileTemplate, engineHelpers } from '../templates/templateEngine';

/** Where a frame of the render runs: the template's file and offset, and the line and column in that file. */
interface Where {
  file: string;
  offset: SourceOffset;
  line: number;
  column: number;
}

type Loc = { start: { line: number; column: number } } | undefined;
type Program = ((context: unknown, options?: unknown) => string) & Record<string, unknown>;

/**
 * Counts what a render produces while it runs, and how long it has run, so a template that multiplies its
 * output (an `{{#each}}` inside an `{{#each}}`, a partial included in a loop) is stopped at the limit
 * instead of after it has exhausted memory. Every block body, inverse and partial runs as a frame; a frame
 * adds what it returned minus what its inner frames returned, so each character is counted once.
 */
export class RenderBudget {
  private produced = 0;
  private ticks = 0;
  private readonly started = Date.now();
  private readonly stack: Where[];
  /** Per frame of `stack`: characters its inner frames returned, already counted. */
  private readonly inner: number[];

  constructor(
    private readonly limits: RenderLimits,
    file: string,
    offset: SourceOffset,
  ) {
    this.stack = [{ file, offset, line: offset.line, column: offset.column + 1 }];
    this.inner = [0];
  }

  /** Renders a template and its partials under this budget; throws a `PromptLimitError` at the limit. */
  render(source: string, context: unknown, partials: Record<string, PartialSource>): string {
    const helpers = this.helpers();
    const wrapped = Object.fromEntries(Object.entries(partials).map(([name, p]) => [name, this.partial(p)]));
    const top = this.stack[0];
    return this.frame(top, compileTemplate(source) as Program, context, { partials: wrapped, helpers });
  }

  /** Runs `run(context, options)` as a frame at `where` and counts its output; `measure` gives the length its caller will see. */
  private frame(where: Where, run: Program, context: unknown, options: unknown, measure?: (out: string) => number): string {
    this.checkTime(where);
    this.stack.push(where);
    this.inner.push(0);
    let out: string;
    let inner: number;
    try {
      out = run(context, options);
    } finally {
      this.stack.pop();
      inner = this.inner.pop()!;
    }
    const length = typeof out === 'string' ? (measure ? measure(out) : out.length) : 0;
    this.produced += Math.max(0, length - inner);
    this.inner[this.inner.length - 1] += length;
    if (this.produced > this.limits.maxOutputChars) {
      this.fail('maxOutputChars', this.limits.maxOutputChars, `the rendered text grows past ${this.limits.maxOutputChars} characters here`, where);
    }
    return out;
  }

  /** Checks the clock every 16th call: cheap enough for every loop step, and well under a millisecond apart. */
  private checkTime(at: Where): void {
    if ((++this.ticks & 15) !== 0 && this.ticks > 16) return;
    if (Date.now() - this.started > this.limits.maxRenderMs) {
      this.fail('maxRenderMs', this.limits.maxRenderMs, `rendering takes longer than ${this.limits.maxRenderMs} ms here`, at);
    }
  }

  private fail(limit: PromptLimitName, value: number, what: string, at: Where): never {
    throw limitError(limit, value, what, at.file, at.line, at.column);
  }

  /** Where a helper call at `loc` of the template now running sits in its file. */
  private at(loc: Loc): Where {
    const top = this.stack[this.stack.length - 1];
    if (!loc) return top;
    return { file: top.file, offset: top.offset, line: top.offset.line + loc.start.line - 1, column: loc.start.column + 1 + top.offset.column };
  }

  /** The engine's helpers, each running its block bodies as frames at its own position. */
  private helpers(): Record<string, Handlebars.HelperDelegate> {
    const out: Record<string, Handlebars.HelperDelegate> = {};
    for (const [name, helper] of Object.entries(engineHelpers())) {
      if (typeof helper !== 'function') continue;
      // eslint-disable-next-line @typescript-eslint/no-this-alias
      const budget = this;
      out[name] = function (this: unknown, ...args: unknown[]) {
        const options = args[args.length - 1] as { fn?: Program; inverse?: Program; loc?: Loc } | undefined;
        const where = budget.at(options?.loc);
        budget.checkTime(where);
        if (options && typeof options.fn === 'function') {
          args[args.length - 1] = { ...options, fn: budget.program(options.fn, where), inverse: budget.program(options.inverse, where) };
        }
        return (helper as (...a: unknown[]) => unknown).apply(this, args);
      };
    }
    return out;
  }

  private program(fn: Program | undefined, where: Where): Program | undefined {
    if (typeof fn !== 'function') return fn;
    const wrapped = ((context: unknown, options?: unknown) => this.frame(where, fn, context, options)) as Program;
    return Object.assign(wrapped, fn);
  }

  /**
   * A partial as a frame in its own file. Handlebars prefixes every line of an indented partial's output after
   * it returns; that is counted here first, so a wide indent times many lines is refused before it is joined.
   */
  private partial(p: PartialSource): Program {
    const compiled = compileTemplate(p.source) as Program;
    const where = { file: p.file, offset: p.offset, line: p.offset.line, column: p.offset.column + 1 };
    return ((context: unknown, options?: { indent?: string }) =>
      this.frame(where, compiled, context, options, (out) => out.length + (options?.indent ? options.indent.length * lineCount(out) : 0))) as Program;
  }
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
