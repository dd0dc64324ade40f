import type { SharedEntry } from '../../src/credits/index.ts';

/** One `mock/echo` request's ledger line as the guards build it (1 token in, 1 out), for credit and outbox tests. */
export function ledgerLine(requestId: string, cost = 1, ids: { account?: string; key?: string } = {}): SharedEntry {
  return {
    ts: Date.now(),
    request_id: requestId,
    account_id: ids.account ?? 'acct_1',
    key_id: ids.key ?? 'key_1',
    model: 'mock/echo',
    provider: 'mock',
    endpoint: '/v1/chat/completions',
    input_tokens: 1,
    output_tokens: 1,
    reasoning_tokens: 0,
    cached_tokens: 0,
    cost_credits: cost,
    estimated: false,
    aborted: false,
  };
}
