/**
 * Anthropic thinking signatures and redacted thinking have no slot in a Responses reasoning item.
 * We carry them in `encrypted_content` as `gwsig:` + base64url(JSON), so a Responses client that
 * sends the item back (stateless multi-turn) lets us restore them byte-exact for Anthropic.
 * OpenAI's own encrypted_content never starts with this prefix and is kept untouched.
 */
export const STASH_PREFIX = 'gwsig:';

/** What a stash carries: a thinking signature or a redacted_thinking payload. */
export interface ReasoningStash {
  signature?: string;
  redacted?: string;
}

/** Encodes a signature / redacted payload into an `encrypted_content` value. */
export function stashReasoning(stash: ReasoningStash): string {
  const json: ReasoningStash = {};
  if (stash.signature !== undefined) json.signature = stash.signature;
  if (stash.redacted !== undefined) json.redacted = stash.redacted;
  return STASH_PREFIX + Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
}

/** Reads a stash back; undefined when the value is not ours (e.g. OpenAI encrypted_content). */
export function unstashReasoning(encrypted: string): ReasoningStash | undefined {
  if (!encrypted.startsWith(STASH_PREFIX)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encrypted.slice(STASH_PREFIX.length), 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { signature, redacted } = parsed as Record<string, unknown>;
    const out: ReasoningStash = {};
    if (typeof signature === 'string') out.signature = signature;
    if (typeof redacted === 'string') out.redacted = redacted;
    return out.signature === undefined && out.redacted === undefined ? undefined : out;
  } catch {
    return undefined;
  }
}
