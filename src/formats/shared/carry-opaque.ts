import type { ContentPart, ProviderMetadata, ReasoningPart } from '../../ir/index.ts';
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
  /** Carried on a call: that call's OpenAI item id (`fc_…`), which must follow the reasoning back (pairsCalls). */
  call?: string;
  metadata?: ProviderMetadata;
}

const TEXT_KEYS = ['signature', 'redacted', 'id', 'encrypted', 'text', 'call'] as const;

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
 * Tool call ids: a call with provider metadata (a Gemini thought signature), or an OpenAI call
 * item id its reasoning item must be sent back beside (`itemId`), goes to a client whose call has
 * no other place for it under an id that carries it — `gwpm_` + base64url(JSON {id, metadata,
 * itemId}), safe for Anthropic's id pattern — and every client sends the id back on the call and
 * on its result. Calls with neither keep their id.
 */
export const CARRIED_ID_PREFIX = 'gwpm_';

/** The id a client sees for a call. */
export function toolIdForClient(id: string, metadata: ProviderMetadata | undefined, itemId?: string): string {
  const withMetadata = hasMetadata(metadata);
  if (!withMetadata && itemId === undefined) return id;
  const carried: { id: string; metadata?: ProviderMetadata; itemId?: string } = { id };
  if (withMetadata) carried.metadata = metadata;
  if (itemId !== undefined) carried.itemId = itemId;
  return CARRIED_ID_PREFIX + Buffer.from(JSON.stringify(carried), 'utf8').toString('base64url');
}

/** A call id a client sent back: the original id and the metadata it carried (none for a plain id). */
export function readToolId(id: string): { id: string; providerMetadata?: ProviderMetadata; itemId?: string } {
  if (!id.startsWith(CARRIED_ID_PREFIX)) return { id };
  try {
    const parsed: unknown = JSON.parse(Buffer.from(id.slice(CARRIED_ID_PREFIX.length), 'base64url').toString('utf8'));
    if (!isRecord(parsed) || typeof parsed.id !== 'string') return { id };
    const metadata = readMetadata(parsed.metadata);
    const out: { id: string; providerMetadata?: ProviderMetadata; itemId?: string } = { id: parsed.id };
    if (metadata) out.providerMetadata = metadata;
    if (typeof parsed.itemId === 'string') out.itemId = parsed.itemId;
    return out;
  } catch {
    return { id };
  }
}

/**
 * True when an answer's calls must keep their OpenAI item ids (`fc_…`) on the way back: it has a
 * reasoning item with encrypted content, which OpenAI takes back only followed by the very call
 * items that followed it ("…was provided without its required following item" otherwise).
 */
export function pairsCalls(response: { content: readonly ContentPart[] }): boolean {
  return response.content.some((part) => part.type === 'reasoning' && part.encrypted !== undefined);
}
