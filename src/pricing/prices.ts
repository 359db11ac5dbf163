import { roundUsd } from './money';

/**
 * What a model's tokens cost: USD per million tokens, by kind. Prices are data — the `pricing:` table of the
 * configuration adds models or overrides these — and free of Node imports, so workflow code may price with them too.
 */
export interface ModelPrice {
  /** Uncached input tokens. */
  input: number;
  output: number;
  /** Input tokens read from the prompt cache (OpenAI: cached input). */
  cacheRead: number;
  /** Input tokens written to the prompt cache (OpenAI charges none). */
  cacheWrite: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

// The default table below was last checked against its sources on 2026-12-03.

const OPUS_NEW: ModelPrice = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 };
const OPUS_OLD: ModelPrice = { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 };
const SONNET: ModelPrice = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const GPT_5: ModelPrice = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };
const GPT_5_MINI: ModelPrice = { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 };

/**
 * The models the claude and codex adapters know. Claude's are the prices claude 2.1.197 applies to its own cost
 * reports (read off its `modelUsage.costUSD` for a million tokens of each kind, against the test mock), except
 * Opus 4 and 4.1, which that CLI maps to a newer model: theirs are Anthropic's published prices. OpenAI's are its
 * published API prices. A key matches the model id itself and its dated ids (`claude-sonnet-4-5` matches
 * `claude-sonnet-4-5-20250929`).
 */
export const DEFAULT_PRICES: PriceTable = {
  'claude-opus-4-8': OPUS_NEW,
  'claude-opus-4-7': OPUS_NEW,
  'claude-opus-4-6': OPUS_NEW,
  'claude-opus-4-5': OPUS_NEW,
  'claude-opus-4-1': OPUS_OLD,
  'claude-opus-4': OPUS_OLD,
  'claude-sonnet-4-6': SONNET,
  'claude-sonnet-4-5': SONNET,
  'claude-sonnet-4': SONNET,
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': GPT_5,
  'gpt-5-codex': GPT_5,
  'gpt-5.1': GPT_5,
  'gpt-5.1-codex': GPT_5,
  'gpt-5.1-codex-max': GPT_5,
  'gpt-5-mini': GPT_5_MINI,
  'gpt-5.1-codex-mini': GPT_5_MINI,
  'gpt-5.2': { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 0 },
  'gpt-5.2-codex': { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 0 },
};

/** What a dated id adds to its model's: `-20250929` (Anthropic), `-2025-08-07` (OpenAI), or `-latest`. */
const DATED = /^-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The price of `model`: its own key, else the key it extends by a date (a dated id). A context-window tag such as
 * claude's `[1m]` is not part of the id. Null when the table has no price for it.
 */
export function priceOf(model: string, table: PriceTable): ModelPrice | null {
  const id = model.replace(/\[[^\]]*\]$/, '');
  const own = table[id];
  if (own) return own;
  for (const [key, price] of Object.entries(table)) {
    if (id.startsWith(key) && DATED.test(id.slice(key.length))) return price;
  }
  return null;
}

/** Token counts of one kind each, as claude's usage reports them (input_tokens excludes the cache's). */
export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** What `tokens` cost at `price` (per million), rounded to the nano-dollar. */
export function costOf(tokens: TokenCounts, price: ModelPrice): number {
  const microDollars =
    tokens.input_tokens * price.input +
    tokens.output_tokens * price.output +
    tokens.cache_read_input_tokens * price.cacheRead +
    tokens.cache_creation_input_tokens * price.cacheWrite;
  return roundUsd(microDollars / 1_000_000);
}

/** The configured table over the default one: a configured model replaces the default price of the same key. */
export function priceTable(configured: PriceTable | undefined): PriceTable {
  return { ...DEFAULT_PRICES, ...configured };
}
