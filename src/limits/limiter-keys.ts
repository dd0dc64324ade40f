/**
 * A limiter key per caller id, made once: the guards ask for the same few callers' keys on every
 * request, and a key made afresh was flattened and hashed again by each Map that looked it up
 * (the in-memory limiter's windows and slots), then compared character by character.
 */
export class LimiterKeys {
  private readonly kept = new Map<string, string>();

  constructor(
    private readonly make: (id: string) => string,
    /** Ids are accounts' and keys'; the bound only keeps a flood of callers from growing it. */
    private readonly max = 4096,
  ) {}

  of(id: string): string {
    let key = this.kept.get(id);
    if (key === undefined) {
      key = this.make(id);
      if (this.kept.size >= this.max) this.kept.clear();
      this.kept.set(id, key);
    }
    return key;
  }
}

/** An API key's rate-limit key. */
export const apiKeyLimitKeys = new LimiterKeys((id) => `k:${id}`);
/** An API key's concurrency-slot key on generation routes. */
export const apiKeySlotKeys = new LimiterKeys((id) => `k:${id}:gen`);
/** An account's key (its caller identity). */
export const accountKeys = new LimiterKeys((id) => `u:${id}`);
/** An account's tier-limit key on generation routes. */
export const accountGenerationKeys = new LimiterKeys((id) => `u:${id}:gen`);
/** An account's concurrency-slot key on generation routes, for a caller with no API key (never its tier-limit key). */
export const accountSlotKeys = new LimiterKeys((id) => `u:${id}:slots`);
