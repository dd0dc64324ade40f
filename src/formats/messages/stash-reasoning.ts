import type { ReasoningPart } from '../../ir/types.ts';

/**
 * OpenAI reasoning (a Responses reasoning item: id + encrypted_content) has no slot in an
 * Anthropic thinking block. We carry it in the block's `signature` as `gwoai:` +
 * base64url(JSON), so a Messages client that sends the thinking block back (as Anthropic
 * clients do in tool loops) lets us restore the item byte-exact for a Responses upstream.
 * Anthropic's own signatures are plain base64 and never start with this prefix.
 */
export const OPENAI_STASH_PREFIX = 'gwoai:';

/** The signature that carries an OpenAI reasoning item's id and encrypted content. */
export function stashOpenAIReasoning(part: Pick<ReasoningPart, 'itemId' | 'encrypted'>): string {
  const json: { id?: string; encrypted?: string } = {};
  if (part.itemId !== undefined) json.id = part.itemId;
  if (part.encrypted !== undefined) json.encrypted = part.encrypted;
  return OPENAI_STASH_PREFIX + Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
}

/** Reads a stashed OpenAI reasoning item back; undefined for a real Anthropic signature. */
export function unstashOpenAIReasoning(signature: string): { itemId?: string; encrypted: string } | undefined {
  if (!signature.startsWith(OPENAI_STASH_PREFIX)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(signature.slice(OPENAI_STASH_PREFIX.length), 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { id, encrypted } = parsed as Record<string, unknown>;
    if (typeof encrypted !== 'string') return undefined;
    return typeof id === 'string' ? { itemId: id, encrypted } : { encrypted };
  } catch {
    return undefined;
  }
}

/** The signature a Messages client sees for a reasoning part ('' when it has none). */
export function clientSignature(part: Pick<ReasoningPart, 'signature' | 'itemId' | 'encrypted'>): string {
  if (part.signature !== undefined) return part.signature;
  return part.encrypted !== undefined ? stashOpenAIReasoning(part) : '';
}
