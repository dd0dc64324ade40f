import type { PassthroughRequest } from '../types.ts';
import { CARRY_PREFIX, isRecord } from '../shared/index.ts';
import { protoName } from './proto-json.ts';
import { SKIP_SIGNATURE } from './signature.ts';

type Json = Record<string, unknown>;

/**
 * A Gemini history that holds another vendor's reasoning (Claude's signed thinking, OpenAI's
 * encrypted reasoning), which the gateway gave a Gemini client as a thought whose
 * `thoughtSignature` carries it (`gwpm:…`), must not reach Google: that value is no signature
 * Gemini can decode (400 INVALID_ARGUMENT). Such a thought is left out, as on a converted route
 * (Gemini cannot use another model's reasoning), and the turn's first `functionCall`, which that
 * model did not sign, gets Google's documented skip value so Gemini 3 does not refuse it
 * (docs/formats.md, *Thought signatures*). Undefined — the client's bytes go untouched — when
 * nothing is carried.
 */
export function dropCarriedReasoning(request: PassthroughRequest): PassthroughRequest | undefined {
  if (!request.raw.includes(CARRY_PREFIX)) return undefined;
  const contents = request.body.contents;
  if (!Array.isArray(contents)) return undefined;
  let changed = false;
  const kept: unknown[] = [];
  for (const content of contents) {
    const cleaned = isRecord(content) ? cleanContent(content) : undefined;
    if (cleaned === undefined) kept.push(content);
    else {
      changed = true;
      if (cleaned !== null) kept.push(cleaned);
    }
  }
  if (!changed) return undefined;
  const body = { ...request.body, contents: kept };
  return { ...request, body, raw: JSON.stringify(body) };
}

/** A content without its carried parts (its first call given the skip value); undefined when it carries none, null when nothing is left. */
function cleanContent(content: Json): Json | null | undefined {
  const parts = content.parts;
  if (!Array.isArray(parts) || !parts.some((part) => isRecord(part) && carried(part))) return undefined;
  const out: Json[] = [];
  for (const part of parts) {
    if (!isRecord(part)) continue;
    if (!carried(part)) out.push(part);
    else if (part.thought !== true) {
      // Only thoughts carry data; a carried value on any other part loses just its signature.
      const rest = { ...part };
      delete rest[protoName(part, 'thoughtSignature', 'thought_signature')];
      out.push(rest);
    }
  }
  if (out.length === 0) return null;
  const first = out.findIndex((part) => part[protoName(part, 'functionCall', 'function_call')] !== undefined);
  if (first >= 0 && signatureOf(out[first]) === undefined) out[first] = { ...out[first], thoughtSignature: SKIP_SIGNATURE };
  return { ...content, parts: out };
}

function signatureOf(part: Json): unknown {
  return part.thoughtSignature ?? part.thought_signature;
}

function carried(part: Json): boolean {
  const signature = signatureOf(part);
  return typeof signature === 'string' && signature.startsWith(CARRY_PREFIX);
}
