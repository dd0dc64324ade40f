import type { LedgerRecord } from '../store/index.ts';
import { creditsToUsd, roundCredits } from '../billing/index.ts';

/** One activity row as `GET /v1/activity` has it (the fields the dashboard sums). */
interface ActivityRow {
  date: string;
  model: string;
  requests: number;
  usage_credits: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** Requests and credits per day (every day of the range, zeros included) and the top models. */
export function summarizeActivity(rows: readonly ActivityRow[], range: { from: string; to: string }) {
  const byDay = new Map<string, { date: string; requests: number; credits: number; tokens: number }>();
  for (let at = Date.parse(range.from); at <= Date.parse(range.to); at += 86_400_000) {
    const date = new Date(at).toISOString().slice(0, 10);
    byDay.set(date, { date, requests: 0, credits: 0, tokens: 0 });
  }
  const byModel = new Map<string, { model: string; requests: number; credits: number; tokens: number }>();
  for (const row of rows) {
    const tokens = row.prompt_tokens + row.completion_tokens;
    const day = byDay.get(row.date);
    if (day) {
      day.requests += row.requests;
      day.credits += row.usage_credits;
      day.tokens += tokens;
    }
    const model = byModel.get(row.model) ?? { model: row.model, requests: 0, credits: 0, tokens: 0 };
    model.requests += row.requests;
    model.credits += row.usage_credits;
    model.tokens += tokens;
    byModel.set(row.model, model);
  }
  const round = <T extends { credits: number }>(r: T) => ({ ...r, credits: roundCredits(r.credits) });
  return {
    per_day: [...byDay.values()].map(round),
    top_models: [...byModel.values()].sort((a, b) => b.credits - a.credits || b.requests - a.requests).slice(0, 8).map(round),
  };
}

/** A ledger row as the dashboard's request table shows it (no account or key secrets; the key id only). */
export function viewLedgerRow(row: LedgerRecord) {
  return {
    request_id: row.request_id,
    created_at: row.ts,
    model: row.model,
    provider: row.provider,
    endpoint: row.endpoint,
    key_id: row.key_id,
    status: row.aborted ? 'aborted' : 'completed',
    estimated: row.estimated,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    reasoning_tokens: row.reasoning_tokens,
    cached_tokens: row.cached_tokens,
    web_search_requests: row.web_search_requests ?? 0,
    cost_credits: row.charged_credits,
    cost_usd: creditsToUsd(row.charged_credits),
  };
}
