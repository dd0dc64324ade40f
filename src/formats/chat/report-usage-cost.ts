import type { UsageCostFace, WireRecord } from '../types.ts';
import { isRecord } from '../shared/index.ts';

/**
 * A usage object with the gateway's charge in OpenRouter's words: `cost` (USD) and `is_byok`
 * (false: the gateway's own upstream credentials served it). An OpenRouter upstream's own
 * `cost_details` (what the operator pays OpenRouter) is left out: the client pays the gateway.
 */
function withCost(usage: Record<string, unknown>, usd: number): Record<string, unknown> {
  const { cost_details: _upstream, cost: _cost, is_byok: _byok, ...rest } = usage;
  return { ...rest, cost: usd, is_byok: false };
}

/** A Chat answer (or usage chunk) body with its usage costed; undefined when it holds no usage object. */
function costedBody(text: string, usd: number): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !isRecord(parsed.usage)) return undefined;
  return JSON.stringify({ ...parsed, usage: withCost(parsed.usage, usd) });
}

/** OpenRouter's usage accounting in Chat answers: `usage.cost` in a whole answer and in a stream's (last) usage chunk. */
export const chatUsageCost: UsageCostFace = {
  marker: '"usage"',
  answer: costedBody,
  record(record: WireRecord, usd: number): WireRecord | undefined {
    const data = costedBody(record.data, usd);
    if (data === undefined) return undefined;
    return record.event === undefined ? { data } : { event: record.event, data };
  },
};
