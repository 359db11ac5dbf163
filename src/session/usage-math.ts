// Import-free (types only): workflow code keeps the usage ledger with these too.
import { addUsd } from '../pricing/money';
import type { Usage } from './schemas/usage';

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cost_usd: 0,
    num_turns: 0,
    duration_ms: 0,
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cost_usd: addUsd(a.cost_usd, b.cost_usd),
    num_turns: a.num_turns + b.num_turns,
    duration_ms: a.duration_ms + b.duration_ms,
  };
}

/** Every input token, the cache's reads and writes included: what "tokens in" means in every view. */
export function tokensIn(u: Usage): number {
  return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
}
