import type { Usage } from '../types';

/** What a model costs, in US dollars per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** A price as users write it in settings (`arbor.pricing`): USD per million input and output tokens. */
export interface ShortModelPrice {
  input: number;
  output: number;
}

/** Either spelling of a price; both mean USD per million tokens. */
export type PriceEntry = ModelPrice | ShortModelPrice;

/**
 * Prices of common OpenAI models, standard tier, USD per million tokens. These are OpenAI's published list
 * prices as of mid-2025 (the o3 figure is the June 2025 reduced price); they change, so a user can override
 * any entry. Dated snapshots ("gpt-4o-2024-08-06") fall back to their family by prefix, except where a
 * snapshot had its own price.
 */
export const DEFAULT_PRICING: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-2024-05-13': { inputPerMillion: 5, outputPerMillion: 15 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'chatgpt-4o-latest': { inputPerMillion: 5, outputPerMillion: 15 },
  'gpt-4-turbo': { inputPerMillion: 10, outputPerMillion: 30 },
  'gpt-4': { inputPerMillion: 30, outputPerMillion: 60 },
  'gpt-3.5-turbo': { inputPerMillion: 0.5, outputPerMillion: 1.5 },
  o1: { inputPerMillion: 15, outputPerMillion: 60 },
  'o1-preview': { inputPerMillion: 15, outputPerMillion: 60 },
  'o1-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'o1-pro': { inputPerMillion: 150, outputPerMillion: 600 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o3-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'o3-pro': { inputPerMillion: 20, outputPerMillion: 80 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'text-embedding-3-small': { inputPerMillion: 0.02, outputPerMillion: 0 },
  'text-embedding-3-large': { inputPerMillion: 0.13, outputPerMillion: 0 },
  'text-embedding-ada-002': { inputPerMillion: 0.1, outputPerMillion: 0 },
});

/**
 * A pricing table: the defaults with the user's entries merged over them. Lookup is exact first, then the
 * longest entry that is a prefix of the model name followed by `-` (so `gpt-4o-mini-2024-07-18` finds
 * `gpt-4o-mini`, never `gpt-4o`). A provider prefix such as `openai/` is ignored. Unknown models cost 0.
 */
export class PricingTable {
  private readonly prices: Map<string, ModelPrice>;

  constructor(overrides: Record<string, PriceEntry> = {}, defaults: Record<string, PriceEntry> = DEFAULT_PRICING) {
    this.prices = new Map();
    for (const [model, entry] of Object.entries({ ...defaults, ...overrides })) {
      const price = normalizePrice(entry);
      if (price) this.prices.set(model.toLowerCase(), price);
    }
  }

  /** The price of a model, or `undefined` when the table does not know it. */
  priceOf(model: string): ModelPrice | undefined {
    const name = model.trim().toLowerCase();
    const bare = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
    for (const candidate of bare === name ? [name] : [name, bare]) {
      const exact = this.prices.get(candidate);
      if (exact) return exact;
      let best: string | undefined;
      for (const key of this.prices.keys()) {
        if (candidate.startsWith(`${key}-`) && (!best || key.length > best.length)) best = key;
      }
      if (best) return this.prices.get(best);
    }
    return undefined;
  }

  /** The cost of one call in USD; 0 for unknown models or missing usage. */
  costUsd(model: string, usage: Usage | undefined): number {
    const price = this.priceOf(model);
    if (!price || !usage) return 0;
    const cost = (usage.promptTokens * price.inputPerMillion + usage.completionTokens * price.outputPerMillion) / 1_000_000;
    return Number.isFinite(cost) && cost > 0 ? cost : 0;
  }
}

function normalizePrice(entry: unknown): ModelPrice | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const e = entry as Partial<ModelPrice & ShortModelPrice>;
  const input = e.inputPerMillion ?? e.input;
  const output = e.outputPerMillion ?? e.output;
  const valid = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (!valid(input) || !valid(output)) return undefined;
  return 'inputPerMillion' in e && 'outputPerMillion' in e ? (e as ModelPrice) : { inputPerMillion: input, outputPerMillion: output };
}

const defaultTable = new PricingTable();

/** The cost of one call in USD from the default table (or the given one); unknown models cost 0. */
export function costUsd(model: string, usage: Usage | undefined, table: PricingTable = defaultTable): number {
  return table.costUsd(model, usage);
}
