import { roundCredits } from '../../billing/index.ts';
import { GatewayError } from '../../errors/index.ts';
import type { AccountRecord, ApiKeyRecord, HoldOutcome } from '../../store/index.ts';
import { balanceError, ceilingError } from '../credit-refusals.ts';
import { nextMonthStart, nextResetAt } from '../spend-period.ts';

/** The error a refused admission answers with: 429 for the token quota, 402 for money, 401 for an account that is gone. */
export function refuseHold(o: HoldOutcome, input: { account: AccountRecord; key: ApiKeyRecord; credits: number; tokens: number }, now: number): GatewayError {
  switch (o.outcome) {
    case 'quota':
      return new GatewayError('quota_exceeded', `The monthly token quota of ${o.limit} tokens is used up (${o.used} used this month); it resets at the start of next month (UTC).`, {
        details: { quota: o.limit, used: o.used, in_flight: o.reservedTokens, requested: input.tokens, resets_at: nextMonthStart(now) },
      });
    case 'key_limit': {
      const reset = input.key.limitReset ?? null;
      return ceilingError({ scope: 'key', id: input.key.id, limit: o.limit, spent: o.used, reset, resetsAt: nextResetAt(reset, now) }, input.credits, roundCredits(o.reserved));
    }
    case 'account_cap':
      return ceilingError({ scope: 'account', id: input.account.id, limit: o.limit, spent: o.used, reset: 'monthly', resetsAt: nextMonthStart(now) }, input.credits, roundCredits(o.reserved));
    case 'no_account':
      return new GatewayError('invalid_api_key', 'The account of this API key no longer exists.');
    default:
      return balanceError(input.credits, o.credits, roundCredits(o.reserved));
  }
}
