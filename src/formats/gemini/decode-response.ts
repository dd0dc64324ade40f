import type { ChatResponse, ContentPart, ImagePart, TextPart } from '../../ir/index.ts';
import { GatewayError, isErrorCode } from '../../errors/index.ts';
import { FailedAnswerError, isRecord, nowSeconds, readString, streamErrorFromUpstream } from '../shared/index.ts';
import { decodeGeminiFinishReason, failedCallMessage } from './map-finish-reason.ts';
import { countGroundedSearches, decodeGeminiUsage, tallyGrounding } from './map-usage.ts';
import { GOOGLE, synthesizedCallId } from './signature.ts';
import { citationsWithin, decodeGrounding } from './map-grounding.ts';
import { decodeGeminiLogprobs } from './map-logprobs.ts';

type Json = Record<string, unknown>;

/** The first candidate's parts (the IR holds one choice). */
export function candidateOf(body: Json): Json | undefined {
  const candidates = body.candidates;
  return Array.isArray(candidates) && isRecord(candidates[0]) ? candidates[0] : undefined;
}

export function partsOf(candidate: Json | undefined): Json[] {
  const content = candidate?.content;
  return isRecord(content) && Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
}

/**
 * An image the model made (`inlineData` with an image type), as an IR image; undefined for any
 * other part, and for a draft (`thought: true`: an image model's interim image while it thinks).
 */
export function generatedImageOf(part: Json): ImagePart | undefined {
  const inline = part.inlineData;
  if (part.thought === true || !isRecord(inline)) return undefined;
  const mediaType = readString(inline, 'mimeType');
  const data = readString(inline, 'data');
  if (mediaType === undefined || data === undefined || !mediaType.startsWith('image/')) return undefined;
  const image: ImagePart = { type: 'image', source: { kind: 'base64', mediaType, data } };
  // Gemini 3's image models sign the image they made: it goes back with it on the next turn.
  if (typeof part.thoughtSignature === 'string') image.providerMetadata = { [GOOGLE]: { thoughtSignature: part.thoughtSignature } };
  return image;
}

/** One upstream part → IR (an unknown part, e.g. executableCode, has no IR form and is left out of a conversion). */
export function decodeUpstreamPart(part: Json): ContentPart | undefined {
  if (part.inlineData !== undefined) return generatedImageOf(part);
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  const providerMetadata = signature === undefined ? undefined : { [GOOGLE]: { thoughtSignature: signature } };
  if (isRecord(part.functionCall)) {
    const call = part.functionCall;
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : synthesizedCallId();
    const out: ContentPart = { type: 'tool_call', id, name: readString(call, 'name') ?? '', arguments: JSON.stringify(isRecord(call.args) ? call.args : {}) };
    if (providerMetadata) out.providerMetadata = providerMetadata;
    return out;
  }
  if (typeof part.text === 'string' || signature !== undefined) {
    const text = typeof part.text === 'string' ? part.text : '';
    const out: ContentPart = part.thought === true ? { type: 'reasoning', text, origin: GOOGLE } : { type: 'text', text };
    if (providerMetadata) out.providerMetadata = providerMetadata;
    return out;
  }
  return undefined;
}

/** A `GenerateContentResponse` from a Gemini upstream → IR. */
export function decodeGeminiResponse(body: unknown): ChatResponse {
  const response = isRecord(body) ? body : {};
  const candidate = candidateOf(response);
  const content = withGrounding(partsOf(candidate).flatMap((part) => decodeUpstreamPart(part) ?? []), candidate?.groundingMetadata);
  withLogprobs(content, candidate?.logprobsResult);
  const blocked = isRecord(response.promptFeedback) && typeof response.promptFeedback.blockReason === 'string';
  const hasToolCalls = content.some((part) => part.type === 'tool_call');
  const reason = typeof candidate?.finishReason === 'string' ? candidate.finishReason : undefined;
  const model = readString(response, 'modelVersion');
  const usage = decodeGeminiUsage(response.usageMetadata);
  countGroundedSearches(usage, tallyGrounding(response, undefined), model);
  const failed = failedCallMessage(reason, candidate?.finishMessage);
  if (failed !== undefined) {
    // The turn's function calling failed (failedCallMessage): the upstream's error, what it used billed.
    const { code: said } = streamErrorFromUpstream(undefined, failed, reason);
    const code = isErrorCode(said) ? said : 'provider_error';
    const options = { details: { upstream_code: reason ?? null } };
    throw usage ? new FailedAnswerError(code, failed, options, usage) : new GatewayError(code, failed, options);
  }
  return {
    id: readString(response, 'responseId') ?? '',
    model: model ?? '',
    created: nowSeconds(),
    content,
    finishReason: blocked ? 'content_filter' : decodeGeminiFinishReason(reason, hasToolCalls),
    usage: usage ?? { inputTokens: 0, outputTokens: 0 },
  };
}

/** The candidate's token log probabilities (`logprobsResult`, asked with `responseLogprobs`), on its first text part: they are the answer's, in order. */
function withLogprobs(content: ContentPart[], result: unknown): void {
  const logprobs = result === undefined ? undefined : decodeGeminiLogprobs(result);
  const text = logprobs && content.find((part): part is TextPart => part.type === 'text');
  if (text) text.logprobs = logprobs;
}

/**
 * The answer with its Google Search grounding: the searches before the first text, each text
 * part with the citations over it (Google's spans are read over the answer's whole text).
 */
function withGrounding(content: ContentPart[], metadata: unknown): ContentPart[] {
  if (metadata === undefined) return content;
  const texts = content.filter((part): part is TextPart => part.type === 'text');
  const { searches, citations } = decodeGrounding(metadata, texts.map((part) => part.text).join(''));
  let offset = 0;
  for (const part of texts) {
    const cited = citationsWithin(citations, offset, part.text.length);
    if (cited.length > 0) part.citations = cited;
    offset += part.text.length;
  }
  const first = content.findIndex((part) => part.type === 'text');
  return first === -1 ? [...content, ...searches] : [...content.slice(0, first), ...searches, ...content.slice(first)];
}
