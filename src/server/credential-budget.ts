import type { H3Event } from 'h3';
import { isGatewayError } from '../errors/index.ts';
import type { ServerDeps } from './types.ts';

/**
 * Runs `check` (a session token's, the admin token's) under the failed-credential budget of the
 * request's client address (`limits.failedCredentials`, docs/accounts-and-limits.md): an address
 * locked out is refused 429 before anything is checked; a credential that was `sent` and refused
 * (401) counts, and the one past the budget is answered 429 instead. A request with no credential
 * is not a guess and is not counted; one that passes asks no store.
 */
export async function withinCredentialBudget<T>(event: H3Event, deps: Pick<ServerDeps, 'guards' | 'clientAddress'>, sent: boolean, check: () => T): Promise<T> {
  const address = deps.clientAddress(event);
  const locked = deps.guards.credentialLockout(address);
  if (locked) throw locked;
  try {
    return check();
  } catch (error) {
    if (!sent || !isGatewayError(error) || error.code !== 'authentication_error') throw error;
    throw (await deps.guards.credentialFailed(address)) ?? error;
  }
}
