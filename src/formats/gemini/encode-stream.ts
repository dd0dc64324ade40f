import type { RequestIds } from '../../errors/index.ts';
import type { ChatRequest, FinishReason, ProviderMetadata, ReasoningPart, StreamPart, UrlCitation, Usage } from '../../ir/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { gatewayErrorOf } from '../shared/index.ts';
import type { StreamEncoder } from '../types.ts';
import { encodeGeminiStreamError } from './errors.ts';
import { callCarry, callFinishReason, clientCall, clientThought, isForeignReasoning, madeImagePart, markUnsignedCall, readableArguments, unwrapAnswer, unwrapKey } from './encode-response.ts';
import { encodeGeminiUsage } from './map-usage.ts';
import { encodeGeminiLogprobs } from './map-logprobs.ts';
import { GOOGLE } from './signature.ts';
import { GroundingWriter } from './map-grounding.ts';

type Json = Record<string, unknown>;
interface OpenCall { id: string; name: string; args: string; metadata?: ProviderMetadata; itemId?: string }

/**
 * IR stream parts → Gemini stream records, one `GenerateContentResponse` each with only the new
 * parts (as Google streams). A text block's signature goes out on an empty part when the block
 * ends; a thought's on its last text (held back one delta for it: the AI SDK's Google provider
 * drops an empty thought part's signature), or on an empty thought when it has none; a call goes
 * out whole when it ends; the last record has the finishReason and the usage. The framing (SSE or
 * a JSON array) is the writer's.
 */
class GeminiStreamEncoder implements StreamEncoder {
  private id = '';
  private model = '';
  private reason: FinishReason = 'stop';
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private readonly calls = new Map<number, OpenCall>();
  /** What signs the open reasoning block, when it is another vendor's (carried on its thought). */
  private reasoningSignature: string | undefined;
  /** A Responses reasoning item's id, carried in the signature so the item goes back under it. */
  private reasoningItemId: string | undefined;
  /** The open thought's latest text, not sent yet: its signature, known at the block's end, goes on it. */
  private heldThought = '';
  /** The open thought's whole text, and what the answer's first call carries of another vendor's first reasoning (callCarry). */
  private thoughtText = '';
  /** Another vendor's first reasoning of the answer: what its first call carries, with that call's OpenAI item id (callCarry). */
  private carried: ReasoningPart | undefined;
  /** The searches and citations so far (Google Search grounding on the last record); the open text block's text and citations (Anthropic cites a block before its text). */
  private readonly grounding = new GroundingWriter();
  private blockText = '';
  private blockCitations: UrlCitation[] = [];
  /** An error record went out: the stream ends there, as Google's does (no finish record after it). */
  private failed = false;
  /** A call went out (only the first of an answer is marked unsigned: markUnsignedCall). */
  private called = false;
  /** A call was left out, its arguments cut or no JSON (readableArguments). */
  private cut = false;

  /** The property a converted `text/x.enum` answer is wrapped in (see unwrapKey). */
  private readonly unwrap: string | undefined;

  constructor(
    private readonly request: ChatRequest,
    private readonly ids: RequestIds,
  ) {
    this.unwrap = unwrapKey(request);
  }

  encode(part: StreamPart): SseRecord[] {
    if (this.failed) return [];
    switch (part.type) {
      case 'start':
        this.id = part.id;
        this.model = part.model || this.request.model;
        return [];
      case 'text-start':
        this.blockText = '';
        this.blockCitations = [];
        return [];
      case 'text-delta':
        this.blockText += part.text;
        // A wrapped enum answer goes out whole at the block's end, unwrapped.
        if (this.unwrap !== undefined) return [];
        return part.text ? [this.chunk([{ text: part.text }], part.logprobs && { logprobsResult: encodeGeminiLogprobs(part.logprobs) })] : [];
      case 'refusal-delta':
        this.grounding.advance(part.text);
        return part.text ? [this.chunk([{ text: part.text }])] : [];
      case 'text-citation':
        this.blockCitations.push(part.citation);
        return [];
      case 'web-search-end':
        this.grounding.search(part.part);
        return [];
      case 'text-end': {
        const answer = this.unwrap !== undefined && this.blockText !== '' ? unwrapAnswer(this.blockText, this.unwrap) : undefined;
        this.grounding.text(answer ?? this.blockText, this.blockCitations);
        this.blockText = '';
        this.blockCitations = [];
        const signature = googleSignature(part.providerMetadata);
        if (answer !== undefined) return [this.chunk([signature === undefined ? { text: answer } : { text: answer, thoughtSignature: signature }])];
        return signature === undefined ? [] : [this.chunk([{ text: '', thoughtSignature: signature }])];
      }
      case 'reasoning-start':
        this.reasoningSignature = undefined;
        this.reasoningItemId = part.itemId;
        this.heldThought = '';
        this.thoughtText = '';
        return [];
      case 'reasoning-delta': {
        if (!part.text) return [];
        this.thoughtText += part.text;
        const earlier = this.heldThought;
        this.heldThought = part.text;
        return earlier ? [this.chunk([{ text: earlier, thought: true }])] : [];
      }
      case 'reasoning-signature':
        this.reasoningSignature = part.signature;
        return [];
      case 'reasoning-end': {
        const reasoning: ReasoningPart = { type: 'reasoning', text: '', signature: this.reasoningSignature, encrypted: part.encrypted, itemId: this.reasoningItemId, providerMetadata: part.providerMetadata };
        const thought = clientThought(reasoning);
        if (this.carried === undefined && isForeignReasoning(reasoning)) this.carried = { ...reasoning, text: this.thoughtText };
        this.thoughtText = '';
        this.reasoningSignature = undefined;
        this.reasoningItemId = undefined;
        const text = this.heldThought;
        this.heldThought = '';
        if (thought?.thoughtSignature === undefined) return text ? [this.chunk([{ text, thought: true }])] : [];
        return [this.chunk([text ? { ...thought, text } : thought])];
      }
      case 'redacted-reasoning': {
        const redacted: ReasoningPart = { type: 'reasoning', text: '', redacted: true, data: part.data };
        const thought = clientThought(redacted);
        this.carried ??= redacted;
        return thought ? [this.chunk([thought])] : [];
      }
      case 'tool-call-start':
        this.calls.set(part.index, { id: part.id, name: part.name, args: '', metadata: part.providerMetadata, itemId: part.itemId });
        return [];
      case 'tool-call-delta': {
        const call = this.calls.get(part.index);
        if (call) call.args += part.argumentsDelta;
        return [];
      }
      case 'tool-call-end': {
        const call = this.calls.get(part.index);
        if (!call) return [];
        this.calls.delete(part.index);
        // A call cut part-way (or with no JSON) goes out as Gemini's own would: not at all (readableArguments).
        if (!readableArguments(call.args)) {
          this.cut = true;
          return [];
        }
        const out: Json = { functionCall: clientCall(call.id, call.name, call.args) };
        const signature = googleSignature(call.metadata);
        if (signature !== undefined) out.thoughtSignature = signature;
        if (!this.called) markUnsignedCall(out, this.carried && callCarry(this.carried, call.itemId));
        this.called = true;
        return [this.chunk([out])];
      }
      case 'image': {
        const image = madeImagePart(part.source);
        return image ? [this.chunk([image])] : [];
      }
      case 'finish':
        this.reason = part.finishReason;
        return [];
      case 'usage':
        this.usage = part.usage;
        return [];
      case 'error':
        this.failed = true;
        // A thought the error cut still reaches the client, before the error.
        return [...this.flushThought(), encodeGeminiStreamError(gatewayErrorOf(part.error), this.ids)];
      case 'end':
        // A thought the upstream never closed still reaches the client.
        return [...this.flushThought(), this.last()];
      default:
        return [];
    }
  }

  /** The held thought text, if any, as its own record (a block that never got its end). */
  private flushThought(): SseRecord[] {
    const text = this.heldThought;
    this.heldThought = '';
    return text ? [this.chunk([{ text, thought: true }])] : [];
  }

  private chunk(parts: Json[], extra?: Json): SseRecord {
    return jsonRecord(undefined, { candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion: this.model, responseId: this.id });
  }

  private last(): SseRecord {
    const candidate: Json = { content: { role: 'model', parts: [{ text: '' }] }, finishReason: callFinishReason(this.reason, this.cut), index: 0 };
    const grounding = this.grounding.metadata();
    if (grounding) candidate.groundingMetadata = grounding;
    return jsonRecord(undefined, {
      candidates: [candidate],
      usageMetadata: encodeGeminiUsage(this.usage),
      modelVersion: this.model,
      responseId: this.id,
    });
  }
}

function googleSignature(metadata: ProviderMetadata | undefined): string | undefined {
  const value = metadata?.[GOOGLE]?.thoughtSignature;
  return typeof value === 'string' ? value : undefined;
}

export function createGeminiStreamEncoder(request: ChatRequest, ids: RequestIds): StreamEncoder {
  return new GeminiStreamEncoder(request, ids);
}
