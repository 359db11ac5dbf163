import { addUsd, budgetArgument, formatUsd, roundUsd } from '../../../src/pricing/money';
import { costOf, DEFAULT_PRICES, priceOf, priceTable } from '../../../src/pricing/prices';

const million = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

describe('prices are data', () => {
  it("matches a model by its id, its dated ids and claude's context tag", () => {
    expect(priceOf('claude-sonnet-4-5-20250929', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(priceOf('claude-opus-4-8[1m]', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['claude-opus-4-8']);
    // claude-opus-4-1-… is not priced as claude-opus-4
    expect(priceOf('claude-opus-4-1-20250805', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['claude-opus-4-1']);
    expect(priceOf('gpt-5.1-codex-mini', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-5.1-codex-mini']);
    expect(priceOf('gpt-5-2025-08-07', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-5']);
    expect(priceOf('claude-sonnet-4-50', DEFAULT_PRICES)).toBeNull();
    expect(priceOf('llama-3', DEFAULT_PRICES)).toBeNull();
  });

  it('prices what claude 2.1.197 itself charges for a million tokens of each kind (read off its cost reports)', () => {
    const opus = DEFAULT_PRICES['claude-opus-4-8'];
    if (!opus) throw new Error('the default table prices claude-opus-4-8, the CLI default');
    const all = {
      input_tokens: 1e6,
      output_tokens: 1e6,
      cache_read_input_tokens: 1e6,
      cache_creation_input_tokens: 1e6,
    };
    // claude -p against the mock, 1M tokens of each kind: total_cost_usd 36.75
    expect(costOf(all, opus)).toBe(36.75);
    expect(costOf({ ...million, input_tokens: 20_000, output_tokens: 8_000 }, opus)).toBe(0.3);
  });

  it('a configured price replaces the default one of the same model and adds new models', () => {
    const table = priceTable({
      'claude-opus-4-8': { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 },
      'my-model': { input: 2, output: 4, cacheRead: 0, cacheWrite: 0 },
    });
    expect(priceOf('claude-opus-4-8', table)?.input).toBe(1);
    expect(priceOf('my-model-20260101', table)?.output).toBe(4);
    expect(priceOf('claude-haiku-4-5', table)).toBe(DEFAULT_PRICES['claude-haiku-4-5']);
  });
});

describe('money without float drift', () => {
  it('sums a thousand turns exactly to the nano-dollar and prints to the cent', () => {
    let floatSum = 0;
    let sum = 0;
    for (let i = 0; i < 1000; i++) {
      floatSum += 0.1 + 0.00773;
      sum = addUsd(sum, 0.10773);
    }
    expect(floatSum).not.toBe(107.73);
    expect(sum).toBe(107.73);
    expect(roundUsd(0.057730000000000004)).toBe(0.05773);
    expect(formatUsd(0.057730000000000004)).toBe('$0.06');
    expect(formatUsd(0.005)).toBe('$0.01');
  });

  it('gives an agent CLI a budget rounded down to a hundredth of a cent, never zero', () => {
    expect(budgetArgument(0.057730000000000004)).toBe('0.0577');
    expect(budgetArgument(0.0577)).toBe('0.0577');
    expect(budgetArgument(2)).toBe('2');
    expect(budgetArgument(0.00001)).toBe('0.0001');
  });
});
