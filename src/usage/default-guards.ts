import type { Settlement } from '../pipeline/types.ts';
import type { Admission, AdmissionRequest, RequestGuards } from '../server/types.ts';
import type { Clock } from '../util/clock.ts';
import type { UsageLedger } from './ledger.ts';

/** Cost in credits (1 credit = 0.001 USD) of a usage at USD-per-million-token prices. */
export function costCredits(settlement: Settlement): number {
  const pricing = settlement.model.spec.pricing;
  if (!pricing) return 0;
  const usd = (settlement.usage.inputTokens * (pricing.input ?? 0) + settlement.usage.outputTokens * (pricing.output ?? 0)) / 1_000_000;
  return Math.round(usd * 1000 * 1e6) / 1e6;
}

/** Guards that admit every request and record its usage in the ledger (no limits, no billing). */
export function createLedgerGuards(ledger: UsageLedger, clock: Clock): RequestGuards {
  return {
    async admit(request: AdmissionRequest): Promise<Admission> {
      return {
        headers: {},
        async settle(settlement) {
          if (!settlement) return;
          ledger.append({
            ts: clock.now(),
            request_id: '',
            account_id: request.auth.account.id,
            key_id: request.auth.key.id,
            model: settlement.model.id,
            provider: settlement.model.provider.id,
            endpoint: request.route,
            input_tokens: settlement.usage.inputTokens,
            output_tokens: settlement.usage.outputTokens,
            reasoning_tokens: settlement.usage.reasoningTokens ?? 0,
            cached_tokens: settlement.usage.cacheReadTokens ?? 0,
            cost_credits: costCredits(settlement),
            estimated: settlement.estimated,
            aborted: settlement.aborted,
          });
        },
      };
    },
  };
}
