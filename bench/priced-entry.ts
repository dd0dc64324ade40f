/** A chat request's priced ledger line as AccountGuards builds it (varying id, tokens and cost): the fixture of the ledger benches. */
import type { PricedEntry } from '../src/credits/index.ts';

const IDS = Array.from({ length: 4096 }, (_, i) => `req_${(1e15 + i * 7919).toString(16)}`);
const COSTS = Array.from({ length: 4096 }, (_, i) => Math.round((0.0001 + i * 0.0000371) * 1e6) / 1e6);

/** The `i`th request's priced line (a fresh object each call, as the guards make one per request). */
export function pricedEntry(i: number): PricedEntry {
  const cost = COSTS[i & 4095];
  return {
    ts: 1_764_450_000_000 + i,
    request_id: IDS[i & 4095],
    account_id: 'acct_9f8e7d6c5b4a',
    key_id: 'key_0a1b2c3d4e5f',
    model: 'openai/gpt-4o-mini',
    provider: 'openai',
    endpoint: '/v1/chat/completions',
    input_tokens: 120 + (i & 63),
    output_tokens: 40 + (i & 7),
    reasoning_tokens: 0,
    cached_tokens: 0,
    cost_credits: cost,
    charged_credits: cost,
    estimated: false,
    aborted: false,
  };
}
