/** Types shared by the account guards and the routes that use them. Types only. */

/** A request made without credentials (login), limited per client address. */
export interface AnonymousRequest {
  method: string;
  /** The route pattern, e.g. `/api/auth/login`. */
  route: string;
  clientAddress: string;
}

/** Guards that can also limit anonymous requests (the account guards do; the placeholder does not). */
export interface AnonymousGuards {
  /** Counts the request against its limit; returns the rate-limit headers or throws 429. */
  admitAnonymous(request: AnonymousRequest): Promise<Record<string, string>>;
}
