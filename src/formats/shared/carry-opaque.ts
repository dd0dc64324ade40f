import type { ProviderMetadata, ReasoningPart } from '../../ir/index.ts';
import { isRecord } from './json.ts';

/**
 * Opaque provider data a client format has no field for, carried in a field it does have and
 * sends back unchanged (a Messages thinking `signature`, a Responses `encrypted_content`, a
 * Chat `reasoning_details` signature, a tool call's id). The one encoding of it, both ways:
 * `gwpm:` + base64url(JSON of CarriedOpaque). Provider values never start with it (Anthropic
 * signatures are plain base64, OpenAI's encrypted_content starts `gAAAA`). Values written by
 * earlier versions (`gwsig:` {signature|redacted}, `gwoai:` {id, encrypted}) read the same way.
 */
export const CARRY_PREFIX = 'gwpm:';
const LEGACY_PREFIXES = ['gwsig:', 'gwoai:'] as const;
/** Every prefix a carried value may start with (the current one and earlier versions'). */
export const CARRIED_PREFIXES: readonly string[] = [CARRY_PREFIX, ...LEGACY_PREFIXES];

/** What one carried value holds: the IR's typed opaque fields and the part's provider metadata. */
export interface CarriedOpaque {
  /** Anthropic thinking signature. */
  signature?: string;
  /** Anthropic redacted_thinking payload. */
  redacted?: string;
  /** OpenAI reasoning item id. */
  id?: string;
  /** OpenAI encrypted_content. */
  encrypted?: string;
  /** The reasoning's text, when the value travels apart from it (a Gemini client's functionCall: gemini-cli keeps no thoughts). */
  text?: string;
  metadata?: ProviderMetadata;
}

const TEXT_KEYS = ['signature', 'redacted', 'id', 'encrypted', 'text'] as const;

/** The carried value for a client's opaque field. */
export function carryOpaque(carried: CarriedOpaque): string {
  const json: CarriedOpaque = {};
  for (const key of TEXT_KEYS) if (carried[key] !== undefined) json[key] = carried[key];
  if (carried.metadata !== undefined && Object.keys(carried.metadata).length > 0) json.metadata = carried.metadata;
  return CARRY_PREFIX + Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
}

/** A carried value read back; undefined when the value is not one of ours (a provider's own). */
export function readCarried(value: string): CarriedOpaque | undefined {
  const prefix = CARRIED_PREFIXES.find((p) => value.startsWith(p));
  if (prefix === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value.slice(prefix.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const out: CarriedOpaque = {};
  for (const key of TEXT_KEYS) if (typeof parsed[key] === 'string') out[key] = parsed[key];
  const metadata = readMetadata(parsed.metadata);
  if (metadata) out.metadata = metadata;
  if (prefix === 'gwoai:' && out.encrypted === undefined) return undefined;
  return out.signature === undefined && out.redacted === undefined && out.encrypted === undefined && out.metadata === undefined ? undefined : out;
}

function readMetadata(value: unknown): ProviderMetadata | undefined {
  if (!isRecord(value)) return undefined;
  const out: ProviderMetadata = {};
  for (const [namespace, entry] of Object.entries(value)) if (isRecord(entry)) out[namespace] = entry;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A reasoning part's opaque data as one record (what a client without its fields carries). */
export function opaqueOfReasoning(part: ReasoningPart): CarriedOpaque {
  const carried: CarriedOpaque = {};
  if (part.signature !== undefined) carried.signature = part.signature;
  if (part.redacted && part.data !== undefined) carried.redacted = part.data;
  if (part.itemId !== undefined) carried.id = part.itemId;
  if (part.encrypted !== undefined) carried.encrypted = part.encrypted;
  if (part.providerMetadata !== undefined) carried.metadata = part.providerMetadata;
  return carried;
}

/** Puts a carried value's data back on a reasoning part (the inverse of opaqueOfReasoning). */
export function restoreReasoning(part: ReasoningPart, carried: CarriedOpaque): ReasoningPart {
  if (carried.signature !== undefined) part.signature = carried.signature;
  if (carried.redacted !== undefined) {
    part.redacted = true;
    part.data = carried.redacted;
  }
  if (carried.id !== undefined && part.itemId === undefined) part.itemId = carried.id;
  if (carried.encrypted !== undefined) part.encrypted = carried.encrypted;
  if (carried.text !== undefined && part.text === '') part.text = carried.text;
  if (carried.metadata !== undefined) part.providerMetadata = carried.metadata;
  return part;
}

/** True when a metadata slot holds something. */
export function hasMetadata(metadata: ProviderMetadata | undefined): metadata is ProviderMetadata {
  return metadata !== undefined && Object.keys(metadata).length > 0;
}

/**
 * Tool call ids: a call with provider metadata (a Gemini thought signature) goes to a client
 * whose call has no other place for it under an id that carries it — `gwpm_` + base64url(JSON
 * {id, metadata}), safe for Anthropic's id pattern — and every client sends the id back on the
 * call and on its result. Calls without metadata keep their id.
 */
export const CARRIED_ID_PREFIX = 'gwpm_';

/** The id a client sees for a call. */
export function toolIdForClient(id: string, metadata: ProviderMetadata | undefined): string {
  if (!hasMetadata(metadata)) return id;
  return CARRIED_ID_PREFIX + Buffer.from(JSON.stringify({ id, metadata }), 'utf8').toString('base64url');
}

/** A call id a client sent back: the original id and the metadata it carried (none for a plain id). */
export function readToolId(id: string): { id: string; providerMetadata?: ProviderMetadata } {
  if (!id.startsWith(CARRIED_ID_PREFIX)) return { id };
  try {
    const parsed: unknown = JSON.parse(Buffer.from(id.slice(CARRIED_ID_PREFIX.length), 'base64url').toString('utf8'));
    if (!isRecord(parsed) || typeof parsed.id !== 'string') return { id };
    const metadata = readMetadata(parsed.metadata);
    return metadata ? { id: parsed.id, providerMetadata: metadata } : { id: parsed.id };
  } catch {
    return { id };
  }
}
