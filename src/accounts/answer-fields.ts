import type { PricedEntry } from '../credits/index.ts';
import type { Settlement } from '../pipeline/index.ts';

/** The longest answer id kept: GET /v1/generation looks up no longer one. */
const MAX_ANSWER_ID = 256;
const MAX_FINISH_REASON = 64;
/** The most ms a line says (the database's integer column), far past any request. */
const MAX_LATENCY_MS = 2 ** 31 - 1;

/**
 * Adds what OpenRouter's generation stats say beyond the charge to a ledger line: the answer's own
 * id (so it can be looked up by it), its finish reason, whether it streamed, its latency. All of
 * it is what the settlement already carries; nothing is read from the answer for it. (Text a
 * database column refuses is left out on the way there: PostgresCreditsRepo's `dbEntry`.)
 */
export function answerFields(entry: PricedEntry, settlement: Settlement, requestId: string, ts: number): void {
  const answerId = settlement.responseId;
  if (answerId !== undefined && answerId !== requestId && answerId.length <= MAX_ANSWER_ID) entry.answer_id = answerId;
  const finishReason = settlement.finishReason;
  if (finishReason !== undefined && finishReason.length <= MAX_FINISH_REASON) entry.finish_reason = finishReason;
  if (settlement.streamed === true) entry.streamed = true;
  const arrivedAt = settlement.arrivedAt;
  if (arrivedAt !== undefined) entry.latency_ms = Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(ts - arrivedAt)));
}
