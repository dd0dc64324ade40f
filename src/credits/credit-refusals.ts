/**
 * What a credit engine answers when it refuses a hold for money (402 insufficient_balance): a
 * spend ceiling reached, or too little balance. One wording for both engines.
 */
import { roundCredits } from '../billing/index.ts';
import { GatewayError } from '../errors/index.ts';

/**
 * A spending ceiling besides the balance: an API key's spend limit or an account's monthly
 * spend cap. `spent` is what settled charges took in the current period; the book adds what
 * in-flight requests of the key (or account) hold.
 */
export interface SpendCeiling {
  scope: 'key' | 'account';
  /** The key id (scope key) or account id (scope account). */
  id: string;
  limit: number;
  spent: number;
  reset: 'daily' | 'weekly' | 'monthly' | null;
  /** Unix seconds when the period starts over; null when it never does. */
  resetsAt: number | null;
}

const CEILING_WORDS = {
  key: (c: SpendCeiling) => `This API key's spend limit of ${c.limit} credits${c.reset ? ` (${c.reset})` : ''}`,
  account: (c: SpendCeiling) => `The account's monthly spend cap of ${c.limit} credits`,
} as const;

/** 402 insufficient_balance: a ceiling (key spend limit, account monthly cap) less what is spent and `reserved` cannot cover `credits`. */
export function ceilingError(ceiling: SpendCeiling, credits: number, reserved: number): GatewayError {
  const available = roundCredits(ceiling.limit - ceiling.spent - reserved);
  const what = CEILING_WORDS[ceiling.scope](ceiling);
  return new GatewayError('insufficient_balance', `${what} is reached: this request needs up to ${credits} credits, ${Math.max(0, available)} are left${ceiling.resetsAt ? ` until ${new Date(ceiling.resetsAt * 1000).toISOString()}` : ''}.`, {
    details: {
      scope: ceiling.scope === 'key' ? 'key_limit' : 'account_spend_cap',
      ...(ceiling.scope === 'key' ? { key_id: ceiling.id } : { account_id: ceiling.id }),
      limit: ceiling.limit,
      limit_reset: ceiling.reset,
      resets_at: ceiling.resetsAt,
      used: roundCredits(ceiling.spent),
      reserved,
      available: Math.max(0, available),
      required: credits,
      unit: 'credits',
    },
  });
}

/** 402 insufficient_balance: the balance less what requests in flight hold cannot cover `credits`. */
export function balanceError(credits: number, balance: number, reserved: number): GatewayError {
  const available = roundCredits(balance - reserved);
  return new GatewayError('insufficient_balance', `Not enough credit: this request needs up to ${credits} credits, ${Math.max(0, available)} are available.`, {
    details: { required: credits, balance, reserved, available: Math.max(0, available), unit: 'credits' },
  });
}
