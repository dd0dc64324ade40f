/**
 * Upstream credentials by value: every provider's `apiKey` and the credential header values the
 * plugins send are remembered here when providers are set up (and when a plugin first sends a
 * new one), and every message that leaves the gateway (error envelopes, stream error events,
 * log lines, passed-through upstream error records) goes through `redactSecrets`.
 *
 * One process-wide set, because the places that must redact are pure encoders reached from
 * every layer. A value remembered for good (a configured key) is never removed; values a plugin
 * mints per call or per rotation (a SigV4 Authorization is new on every call, a credential chain's
 * keys change) are `transient`: the newest MAX_SECRETS of them are kept, one sent again counting
 * as new, so they never push a configured key out.
 */

/** Shorter values are not redacted: they would blank out ordinary words. */
export const MIN_SECRET_LENGTH = 8;
/** Transient values kept at most (a plugin that mints a token per request only keeps the newest). */
export const MAX_SECRETS = 256;
export const REDACTED = '[redacted]';

class SecretValues {
  /** Remembered for good. */
  private readonly kept = new Set<string>();
  /** Minted per call or per rotation, oldest first (one sent again moves to the end). */
  private readonly transient = new Set<string>();
  /** Longest first, so a secret that contains another is replaced whole. */
  private ordered: string[] = [];
  private readonly bytes = new Map<string, Buffer>();

  get size(): number {
    return this.kept.size + this.transient.size;
  }

  has(value: string): boolean {
    return this.kept.has(value) || this.transient.has(value);
  }

  add(value: string, transient: boolean): void {
    if (value.length < MIN_SECRET_LENGTH) return;
    // The form a JSON string carries (e.g. a `"` or `\` escaped), for bytes passed through as they came.
    const escaped = JSON.stringify(value).slice(1, -1);
    let changed = this.put(value, transient);
    if (escaped !== value) changed = this.put(escaped, transient) || changed;
    if (!changed) return;
    this.ordered = [...this.kept, ...this.transient].sort((a, b) => b.length - a.length);
    this.bytes.clear();
  }

  /** True when the set of values changed (not when a transient one only moved to the end). */
  private put(value: string, transient: boolean): boolean {
    if (this.kept.has(value)) return false;
    const had = this.transient.delete(value);
    if (!transient) {
      this.kept.add(value);
      return !had;
    }
    this.transient.add(value);
    if (had) return false;
    while (this.transient.size > MAX_SECRETS) this.transient.delete(this.transient.values().next().value!);
    return true;
  }

  redact(text: string): string {
    const ordered = this.ordered;
    for (let i = 0; i < ordered.length; i += 1) {
      if (text.includes(ordered[i])) text = text.replaceAll(ordered[i], REDACTED);
    }
    return text;
  }

  /** True when `data` holds any remembered value. */
  foundIn(data: string | Buffer): boolean {
    const ordered = this.ordered;
    for (let i = 0; i < ordered.length; i += 1) {
      const value = ordered[i];
      if (typeof data === 'string' ? data.includes(value) : data.indexOf(this.bytesOf(value)) !== -1) return true;
    }
    return false;
  }

  clear(): void {
    this.kept.clear();
    this.transient.clear();
    this.ordered = [];
    this.bytes.clear();
  }

  private bytesOf(value: string): Buffer {
    let out = this.bytes.get(value);
    if (!out) this.bytes.set(value, (out = Buffer.from(value)));
    return out;
  }
}

const secrets = new SecretValues();

/**
 * Remembers an upstream credential so it is redacted wherever it would leave the gateway; for
 * good, or `transient` (minted per call or per rotation: only the newest MAX_SECRETS are kept).
 */
export function rememberSecret(value: string | undefined | null, transient = false): void {
  if (typeof value === 'string') secrets.add(value.trim(), transient);
}

/** Remembers a credential header's value: the whole value and, for `Bearer x` / `Basic x`, the token. */
export function rememberSecretHeader(value: string | undefined | null, transient = false): void {
  if (typeof value !== 'string') return;
  rememberSecret(value, transient);
  const space = value.indexOf(' ');
  if (space > 0) rememberSecret(value.slice(space + 1), transient);
}

/** True when `value` was remembered (a fast check for callers that see the same values often). */
export function isRememberedSecret(value: string): boolean {
  return secrets.has(value);
}

/** True once any upstream credential is remembered (lets hot paths skip the scan). */
export function hasSecrets(): boolean {
  return secrets.size !== 0;
}

/** `text` with every remembered upstream credential replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  return secrets.size === 0 ? text : secrets.redact(text);
}

/** True when `data` holds a remembered upstream credential. */
export function containsSecret(data: string | Buffer): boolean {
  return secrets.size !== 0 && secrets.foundIn(data);
}

/** Forgets every remembered value (tests). */
export function forgetSecrets(): void {
  secrets.clear();
}
