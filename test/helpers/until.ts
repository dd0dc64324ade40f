/** Polls `probe` every 50 ms until it gives a value (not undefined), or fails naming `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Polls `count` (bytes moved so far) until it stays the same for `polls` polls in a row or passes
 * `past`, and gives it then: what a backpressure test asks, did the bytes stop or run on.
 */
export function untilStill(what: string, count: () => number, past: number, polls = 5): Promise<number> {
  let last = -1;
  let still = 0;
  return until(what, async () => {
    const now = count();
    if (now > past) return now;
    still = now === last ? still + 1 : 0;
    last = now;
    return still >= polls ? now : undefined;
  });
}
