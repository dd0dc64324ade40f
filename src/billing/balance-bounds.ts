import { z } from 'zod';
import { GatewayError } from '../errors/index.ts';
import { roundCredits } from './price-usage.ts';

/**
 * The largest balance an account may hold, in credits (1e9 credits = 1,000,000 USD). Balances
 * are kept to a millionth of a credit; up to 1e9 a balance in millionths (1e15) is still an
 * exact integer in a double (2^53 ≈ 9e15), so every charge and grant stays exact.
 */
export const MAX_BALANCE = 1e9;

/** Credits an operator adds (or, negative, takes): a finite number within ±MAX_BALANCE. */
export const creditDeltaSchema = z
  .number({ error: 'must be a number of credits' })
  .refine(Number.isFinite, { error: 'must be a finite number of credits' })
  .refine((n) => Math.abs(n) <= MAX_BALANCE, { error: `must be between -${MAX_BALANCE} and ${MAX_BALANCE} credits` });

/** A balance an operator sets (a new account's starting credits): 0 up to MAX_BALANCE. */
export const balanceSchema = z
  .number({ error: 'must be a number of credits' })
  .refine(Number.isFinite, { error: 'must be a finite number of credits' })
  .refine((n) => n >= 0, { error: 'must not be negative' })
  .refine((n) => n <= MAX_BALANCE, { error: `must be at most ${MAX_BALANCE} credits` });

/**
 * The balance after an operator's grant (or withdrawal), or a 422 naming `add` when it would
 * leave 0…MAX_BALANCE: a withdrawal larger than the balance is refused, never clipped.
 */
export function applyGrant(balance: number, add: number): number {
  if (!Number.isFinite(add)) throw grantError(`must be a finite number of credits, got ${add}`);
  const next = roundCredits(balance + add);
  if (next < 0) throw grantError(`would take the balance below 0 (it is ${balance} credits; at most ${balance} can be taken)`);
  if (!(next <= MAX_BALANCE)) throw grantError(`would take the balance above ${MAX_BALANCE} credits (it is ${balance}; at most ${roundCredits(MAX_BALANCE - balance)} can be added)`);
  return next;
}

function grantError(message: string): GatewayError {
  return new GatewayError('validation_error', `Invalid parameter 'add': ${message}`, { details: { fields: { add: message } } });
}

/**
 * A balance after a charge, kept finite and within ±MAX_BALANCE whatever the charge (with
 * `billing.enforce: false` a balance may go negative, but never to -Infinity or NaN).
 */
export function boundBalance(previous: number, next: number): number {
  if (Number.isNaN(next)) return previous;
  return Math.min(MAX_BALANCE, Math.max(-MAX_BALANCE, next));
}

/** The change to apply to `balance` for `delta` so the result stays finite and within ±MAX_BALANCE. */
export function boundedDelta(balance: number, delta: number): number {
  const next = boundBalance(balance, roundCredits(balance + delta));
  return roundCredits(next - balance);
}
