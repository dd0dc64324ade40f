/** A source of time, injectable so tests can move it (media expiry, windows). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that reads `GATEWAY_CLOCK_OFFSET_MS` (tests only) on top of the system time. */
export function createClock(offsetMs = Number(process.env.GATEWAY_CLOCK_OFFSET_MS ?? 0)): Clock {
  if (!offsetMs) return systemClock;
  return { now: () => Date.now() + offsetMs };
}

export function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
