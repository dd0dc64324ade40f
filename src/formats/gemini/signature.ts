import type { ProviderMetadata, WithProviderMetadata } from '../../ir/index.ts';
import { generateId, type FieldChecker } from '../shared/index.ts';

/** The namespace of Gemini's opaque data in `providerMetadata`. */
export const GOOGLE = 'google';

/**
 * Google's documented value for a `functionCall` whose signature is genuinely unavailable
 * (history another model or a client that dropped it produced): Gemini 3 then skips the check
 * instead of answering 400 (wire-formats-providers §1.10; docs/formats.md).
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Ids the gateway made up for calls Gemini sent without one: never sent to a Gemini upstream. */
const MADE_UP = 'gwcall_';

/** A part's `thoughtSignature` as provider metadata (byte-exact), or undefined. */
export function metadataOf(signature: unknown, check: FieldChecker, path: string): ProviderMetadata | undefined {
  const value = check.string(signature, path);
  return value === undefined ? undefined : { [GOOGLE]: { thoughtSignature: value } };
}

/** The Gemini signature a part carries, if any. */
export function signatureOf(part: WithProviderMetadata): string | undefined {
  const value = part.providerMetadata?.[GOOGLE]?.thoughtSignature;
  return typeof value === 'string' ? value : undefined;
}

/** An id for a call Gemini sent without one: `index` keeps a request's ids apart, the random tail a conversation's. */
export function synthesizedCallId(index?: number): string {
  return index === undefined ? generateId(MADE_UP, 16) : `${MADE_UP}${index}`;
}

/** Whether the id is one the gateway made up (left out of a Gemini upstream request). */
export function isMadeUpId(id: string): boolean {
  return id.startsWith(MADE_UP);
}

/** A call id as the client sent it. */
export function readToolCallId(id: string): string {
  return id;
}
