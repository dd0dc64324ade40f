import type { ChatRequest, ChatResponse, ContentPart, MediaSource, ReasoningPart } from '../../ir/index.ts';
import { argumentsForClient, carryOpaque, hasMetadata, isRecord, logprobsOfParts, opaqueOfReasoning, tryParseJson } from '../shared/index.ts';
import { averageLogprob, encodeGeminiLogprobs } from './map-logprobs.ts';
import { encodeGeminiFinishReason } from './map-finish-reason.ts';
import { encodeGeminiUsage } from './map-usage.ts';
import { SKIP_SIGNATURE, signatureOf } from './signature.ts';
import { GroundingWriter } from './map-grounding.ts';

type Json = Record<string, unknown>;

/** IR → a `GenerateContentResponse` for a Gemini client. */
export function encodeGeminiResponse(response: ChatResponse, request: ChatRequest): Json {
  const key = unwrapKey(request);
  const content = key === undefined ? response.content : response.content.map((part) => (part.type === 'text' ? { ...part, text: unwrapAnswer(part.text, key) } : part));
  const parts = content.flatMap(clientPart);
  const foreign = content.find((part): part is ReasoningPart => part.type === 'reasoning' && isForeignReasoning(part));
  const firstCall = content.find((part) => part.type === 'tool_call');
  markUnsignedCall(parts.find((part) => part.functionCall !== undefined), foreign && callCarry(foreign, firstCall?.type === 'tool_call' ? firstCall.itemId : undefined));
  const cut = content.some((part) => part.type === 'tool_call' && !readableArguments(part.arguments));
  const candidate: Json = { content: { role: 'model', parts }, finishReason: callFinishReason(response.finishReason, cut), index: 0 };
  const grounding = groundingOf(content);
  if (grounding) candidate.groundingMetadata = grounding;
  const logprobs = logprobsOfParts(content);
  if (logprobs) {
    candidate.avgLogprobs = averageLogprob(logprobs);
    candidate.logprobsResult = encodeGeminiLogprobs(logprobs);
  }
  return {
    candidates: [candidate],
    usageMetadata: encodeGeminiUsage(response.usage),
    modelVersion: response.model,
    responseId: response.id,
  };
}

/** The property a converted `text/x.enum` answer is wrapped in (decode-request's enumFormatOf), if the client asked for one. */
export function unwrapKey(request: ChatRequest): string | undefined {
  return request.responseFormat?.type === 'json_schema' ? request.responseFormat.unwrap : undefined;
}

/** `{"answer":"X"}` → `X`, as Gemini answers `text/x.enum`; text that is not such an object stays as it is. */
export function unwrapAnswer(text: string, key: string): string {
  const parsed = tryParseJson(text);
  const value = isRecord(parsed) ? parsed[key] : undefined;
  return typeof value === 'string' ? value : text;
}

/** The hosted web searches of an answer and the citations of its text, as Google Search grounding. */
function groundingOf(content: readonly ContentPart[]): Json | undefined {
  const grounding = new GroundingWriter();
  for (const part of content) {
    if (part.type === 'web_search') grounding.search(part);
    else if (part.type === 'text') grounding.text(part.text, part.citations);
    else if (part.type === 'refusal') grounding.advance(part.refusal);
  }
  return grounding.metadata();
}

/** One IR output part → the Gemini parts a client sees (a web search is grounding metadata, not a part). */
export function clientPart(part: ContentPart): Json[] {
  switch (part.type) {
    case 'text': {
      const signature = signatureOf(part);
      if (part.text === '' && signature === undefined) return [];
      return [signature === undefined ? { text: part.text } : { text: part.text, thoughtSignature: signature }];
    }
    case 'refusal':
      return [{ text: part.refusal }];
    case 'reasoning': {
      const thought = clientThought(part);
      return thought ? [thought] : [];
    }
    case 'tool_call': {
      if (!readableArguments(part.arguments)) return [];
      const out: Json = { functionCall: clientCall(part.id, part.name, part.arguments) };
      const signature = signatureOf(part);
      if (signature !== undefined) out.thoughtSignature = signature;
      return [out];
    }
    case 'image': {
      const image = madeImagePart(part.source);
      return image ? [image] : [];
    }
    default:
      return [];
  }
}

/** An image the model made, as Gemini's image models write one (`inlineData`); a URL or file id has no such form. */
export function madeImagePart(source: MediaSource): Json | undefined {
  return source.kind === 'base64' ? { inlineData: { mimeType: source.mediaType, data: source.data } } : undefined;
}

/**
 * The first call of an answer another model wrote (no Gemini signature: a converted answer from
 * Chat, Responses or Messages) carries Google's documented skip value, as Google asks of a client
 * that moves another model's calls to Gemini 3. So that history goes on on a Gemini 3 model as it
 * is (a client that switches models, the gateway's fallback mid-loop): Gemini 3 refuses an unsigned
 * first call of the current turn with 400, and a passthrough sends the client's history as written.
 */
export function markUnsignedCall(call: Json | undefined, carried?: string): void {
  if (call !== undefined && call.thoughtSignature === undefined) call.thoughtSignature = carried ?? SKIP_SIGNATURE;
}

/**
 * What the first call of an answer with another vendor's reasoning carries instead of the skip
 * value: that reasoning, its text included (Anthropic checks a signature against its thinking).
 * gemini-cli keeps no thought parts in its history, only each turn's signed first call (what
 * Gemini 3 needs), so this is how Claude's signed thinking comes back from it; decode-request
 * restores it before the call unless the thought came back too. A Gemini upstream never gets it
 * (drop-carried gives the call the skip value).
 */
export function callCarry(part: ReasoningPart, callItemId?: string): string {
  return carryOpaque({ ...opaqueOfReasoning(part), ...(part.redacted ? {} : { text: part.text }), ...(callItemId !== undefined && part.encrypted !== undefined ? { call: callItemId } : {}) });
}

/** Reasoning another vendor wrote (an Anthropic signature, OpenAI encrypted reasoning, redacted thinking, another's metadata). */
export function isForeignReasoning(part: ReasoningPart): boolean {
  return part.signature !== undefined || part.encrypted !== undefined || part.redacted === true || (signatureOf(part) === undefined && hasMetadata(part.providerMetadata));
}

/**
 * True when a call's arguments are a JSON object (or none). A call the output cap cut part-way (a
 * Chat upstream's `finish_reason: "length"` inside its arguments), or one the model wrote no JSON
 * for, has none Gemini could hold: Gemini never sends a part of a call, it ends `MAX_TOKENS` (or
 * `MALFORMED_FUNCTION_CALL`) without it. Such a call is left out, so a Gemini client does not run
 * the tool with empty arguments (gemini-cli ran write_file with `{}` and went on as if answered).
 */
export function readableArguments(args: string): boolean {
  return args.trim() === '' || isRecord(tryParseJson(args));
}

/** The answer's finishReason when a call was left out (readableArguments): the cap's own, else Gemini's malformed call. */
export function callFinishReason(reason: ChatResponse['finishReason'], cut: boolean): string {
  return cut && reason !== 'length' && reason !== 'pause' ? 'MALFORMED_FUNCTION_CALL' : encodeGeminiFinishReason(reason);
}

export function clientCall(id: string, name: string, args: string): Json {
  const parsed = tryParseJson(argumentsForClient(args));
  return { id, name, args: isRecord(parsed) ? parsed : {} };
}

/**
 * A reasoning part as a thought: Gemini's own with its signature; another vendor's (Anthropic
 * signature, OpenAI encrypted reasoning) with a signature that carries it back
 * (shared/carry-opaque.ts), since a Gemini client returns signatures as it got them.
 */
export function clientThought(part: ReasoningPart): Json | undefined {
  const signature = signatureOf(part);
  if (isForeignReasoning(part)) return { text: part.redacted ? '' : part.text, thought: true, thoughtSignature: carryOpaque(opaqueOfReasoning(part)) };
  if (signature !== undefined) return { text: part.text, thought: true, thoughtSignature: signature };
  return part.text ? { text: part.text, thought: true } : undefined;
}
