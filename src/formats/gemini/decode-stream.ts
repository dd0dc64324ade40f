import type { FinishReason, ProviderMetadata, StreamPart, Usage } from '../../ir/index.ts';
import type { SseRecord } from '../../sse/index.ts';
import { isRecord, nowSeconds, readString, streamErrorFromUpstream } from '../shared/index.ts';
import type { StreamDecoder } from '../types.ts';
import { candidateOf, generatedImageOf, partsOf } from './decode-response.ts';
import { decodeGeminiStreamError } from './errors.ts';
import { decodeGeminiFinishReason, failedCallMessage } from './map-finish-reason.ts';
import { countGroundedSearches, decodeGeminiUsage, tallyGrounding, type GroundingTally } from './map-usage.ts';
import { GOOGLE, synthesizedCallId } from './signature.ts';
import { citationsWithin, decodeGrounding } from './map-grounding.ts';
import { decodeGeminiLogprobs } from './map-logprobs.ts';

type Json = Record<string, unknown>;

/**
 * A Gemini stream (each record a whole `GenerateContentResponse` with only the new parts) → IR
 * parts. Text and thought parts open blocks; a signed part keeps its signature for the block's
 * end part, and a second signature starts a new block (signed parts are never merged); each
 * `functionCall` arrives whole. `finishReason` finishes; the last `usageMetadata` is the usage.
 * The first `groundingMetadata` (Google Search) cites the open text block, then its searches
 * follow as web-search parts (outside any text block); every record's grounding is tallied into
 * the usage's web searches (Google may send it on several records).
 */
class GeminiStreamDecoder implements StreamDecoder {
  private started = false;
  private open: 'text' | 'reasoning' | undefined;
  private signature: string | undefined;
  private calls = 0;
  private hasToolCalls = false;
  private finished = false;
  private done = false;
  private usage: Usage | undefined;
  /** The answer's text so far (thoughts left out), and where the open text block starts in it: grounding spans are over it. */
  private answer = '';
  private textStart = 0;
  private grounded = false;
  private searches: GroundingTally | undefined;
  private model: string | undefined;
  private out: StreamPart[] = [];

  push(record: SseRecord): StreamPart[] {
    if (this.done) return [];
    let chunk: unknown;
    try {
      chunk = JSON.parse(record.data);
    } catch {
      return [];
    }
    if (!isRecord(chunk)) return [];
    if (isRecord(chunk.error)) return this.fail(record, chunk.error.code);
    if (!this.started) {
      this.started = true;
      const start: StreamPart = { type: 'start', id: readString(chunk, 'responseId') ?? '', model: readString(chunk, 'modelVersion') ?? '', created: nowSeconds() };
      const usage = decodeGeminiUsage(chunk.usageMetadata);
      // The prompt's counts (of them, what Google's cache served): a Messages client reads both in message_start.
      if (usage) start.usage = usage.cacheReadTokens ? { inputTokens: usage.inputTokens, cacheReadTokens: usage.cacheReadTokens } : { inputTokens: usage.inputTokens };
      this.out.push(start);
    }
    const candidate = candidateOf(chunk);
    const from = this.out.length;
    for (const part of partsOf(candidate)) this.part(part);
    if (candidate?.logprobsResult !== undefined) this.logprobs(candidate.logprobsResult, from);
    if (!this.grounded && candidate?.groundingMetadata !== undefined) this.ground(candidate.groundingMetadata);
    this.searches = tallyGrounding(chunk, this.searches);
    this.model ??= readString(chunk, 'modelVersion');
    const usage = decodeGeminiUsage(chunk.usageMetadata);
    if (usage) this.usage = usage;
    const reason = readString(candidate ?? {}, 'finishReason');
    const failed = failedCallMessage(reason, candidate?.finishMessage);
    if (failed !== undefined) return this.failCalls(failed, reason!);
    const blocked = isRecord(chunk.promptFeedback) && typeof chunk.promptFeedback.blockReason === 'string';
    if ((reason || blocked) && !this.finished) this.finish(blocked ? 'content_filter' : decodeGeminiFinishReason(reason, this.hasToolCalls));
    return this.flush();
  }

  end(): StreamPart[] {
    if (this.done) return [];
    this.done = true;
    this.close();
    if (!this.finished) this.out.push({ type: 'error', error: streamErrorFromUpstream(undefined, 'The upstream stream ended before it finished.') });
    else {
      countGroundedSearches(this.usage, this.searches, this.model);
      if (this.usage) this.out.push({ type: 'usage', usage: this.usage });
      this.out.push({ type: 'end' });
    }
    return this.flush();
  }

  /**
   * An error element (Google's `{"error": {code, message, status}}`): what it says ends the stream; nothing after it
   * is read. Its `code` is the HTTP status Google gives the failure (a Bedrock client's `originalStatusCode`).
   */
  private fail(record: SseRecord, status: unknown): StreamPart[] {
    this.done = true;
    const said = decodeGeminiStreamError(record);
    this.out.push({ type: 'error', error: streamErrorFromUpstream(said?.type, said?.message ?? '', said?.code, undefined, typeof status === 'number' ? status : undefined) });
    return this.flush();
  }

  /** A turn whose function calling failed (failedCallMessage): the upstream's error, then what it used (billed), then the end. */
  private failCalls(message: string, reason: string): StreamPart[] {
    this.done = true;
    this.out.push({ type: 'error', error: streamErrorFromUpstream(undefined, message, reason) });
    if (this.usage) this.out.push({ type: 'usage', usage: this.usage });
    this.out.push({ type: 'end' });
    return this.flush();
  }

  private part(part: Json): void {
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
    if (isRecord(part.functionCall)) {
      this.close();
      const call = part.functionCall;
      const index = this.calls++;
      this.hasToolCalls = true;
      const start: StreamPart = { type: 'tool-call-start', index, id: typeof call.id === 'string' && call.id !== '' ? call.id : synthesizedCallId(), name: readString(call, 'name') ?? '' };
      if (signature !== undefined) start.providerMetadata = metadata(signature);
      this.out.push(start, { type: 'tool-call-delta', index, argumentsDelta: JSON.stringify(isRecord(call.args) ? call.args : {}) }, { type: 'tool-call-end', index });
      return;
    }
    if (part.inlineData !== undefined) {
      // A made image comes whole, outside any text block (a draft one is left out).
      const image = generatedImageOf(part);
      if (image) {
        this.close();
        this.out.push(image.providerMetadata ? { type: 'image', source: image.source, providerMetadata: image.providerMetadata } : { type: 'image', source: image.source });
      }
      return;
    }
    if (typeof part.text !== 'string' && signature === undefined) return;
    const text = typeof part.text === 'string' ? part.text : '';
    const kind = part.thought === true ? 'reasoning' : 'text';
    // A signature-only part signs the block that is open; a second signature starts a new block.
    if (this.open !== kind && !(text === '' && this.open !== undefined)) this.openBlock(kind);
    else if (signature !== undefined && this.signature !== undefined) this.openBlock(this.open ?? kind);
    if (text !== '' && this.open === 'text') this.answer += text;
    if (text !== '') this.out.push(this.open === 'reasoning' ? { type: 'reasoning-delta', text } : { type: 'text-delta', text });
    if (signature !== undefined) this.signature = signature;
  }

  /** A record's token log probabilities (`logprobsResult`: its own tokens) on its last text delta. */
  private logprobs(result: unknown, from: number): void {
    const logprobs = decodeGeminiLogprobs(result);
    if (!logprobs) return;
    for (let i = this.out.length - 1; i >= from; i--) {
      const part = this.out[i];
      if (part.type === 'text-delta') {
        this.out[i] = { ...part, logprobs };
        return;
      }
    }
  }

  private openBlock(kind: 'text' | 'reasoning'): void {
    this.close();
    this.open = kind;
    this.textStart = this.answer.length;
    this.out.push(kind === 'text' ? { type: 'text-start' } : { type: 'reasoning-start', origin: GOOGLE });
  }

  private close(): void {
    if (!this.open) return;
    const providerMetadata = this.signature === undefined ? undefined : metadata(this.signature);
    if (this.open === 'text') this.out.push(providerMetadata ? { type: 'text-end', providerMetadata } : { type: 'text-end' });
    else this.out.push(providerMetadata ? { type: 'reasoning-end', providerMetadata } : { type: 'reasoning-end' });
    this.open = undefined;
    this.signature = undefined;
  }

  /** Google Search grounding: citations of the open text block (earlier blocks are closed: no place), then the searches. */
  private ground(metadata: unknown): void {
    this.grounded = true;
    const { searches, citations } = decodeGrounding(metadata, this.answer);
    if (this.open === 'text') {
      for (const citation of citationsWithin(citations, this.textStart, this.answer.length - this.textStart)) this.out.push({ type: 'text-citation', citation });
    }
    if (searches.length === 0) return;
    this.close();
    for (const part of searches) this.out.push({ type: 'web-search-start', id: part.id, ...(part.query === undefined ? {} : { query: part.query }) }, { type: 'web-search-end', part });
  }

  private finish(reason: FinishReason): void {
    this.close();
    this.finished = true;
    this.out.push({ type: 'finish', finishReason: reason });
  }

  private flush(): StreamPart[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}

function metadata(signature: string): ProviderMetadata {
  return { [GOOGLE]: { thoughtSignature: signature } };
}

export function createGeminiStreamDecoder(): StreamDecoder {
  return new GeminiStreamDecoder();
}
