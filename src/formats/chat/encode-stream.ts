import type { RequestIds } from '../../errors/index.ts';
import type { ChatRequest, StreamError, StreamPart, UrlCitation, Usage } from '../../ir/index.ts';
import { encodeChatAnnotation } from './map-web-search.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import type { StreamEncoder } from '../types.ts';
import { carryOpaque, customToolInput, encodeLogprobs, gatewayErrorOf, generateId, hasMetadata, isCustomTool, mediaSourceToUrl, nowSeconds, prefixedId, toolIdForClient } from '../shared/index.ts';
import { chatImage } from './encode-response.ts';
import { encodeChatStreamError } from './encode-error.ts';
import { encodeChatFinishReason } from './map-finish-reason.ts';
import { reasoningFormat } from './map-reasoning.ts';
import { encodeChatUsage } from './map-usage.ts';
import { ANTHROPIC_REASONING_FORMAT, OPENAI_REASONING_FORMAT, UNKNOWN_REASONING_FORMAT, type ChatReasoningDetail } from './types.ts';

/**
 * An encoder of IR stream parts into a Chat Completions stream (wire-formats §1.8, spec §6.1):
 * role chunk first, reasoning as `reasoning_content` + `reasoning_details` deltas, tool calls
 * keyed by index, a finish chunk with `delta:{}`, the usage chunk (`choices:[]`) only when
 * the client asked for it, then `[DONE]`. Every chunk repeats the same id/created/model. No
 * reasoning at all when the request said OpenRouter's `reasoning.exclude`.
 */
export function createChatStreamEncoder(request: ChatRequest, ids: RequestIds): StreamEncoder {
  return new ChatStreamEncoder(request.includeUsage === true, ids, request.tools, request.excludeReasoning === true);
}

class ChatStreamEncoder implements StreamEncoder {
  private id = generateId('chatcmpl-');
  private model = '';
  private created = nowSeconds();
  private started = false;
  private finished = false;
  private done = false;
  private usage: Usage | undefined;
  private readonly toolIndex = new Map<number, number>();
  private readonly argsPending = new Set<number>();
  /** Custom tools' calls by IR index: their text is given out whole, in one chunk, once their arguments are in. */
  private readonly customCalls = new Map<number, { index: number; id: string; name: string; args: string }>();
  private nextDetail = 0;
  /** An encrypted reasoning item went by: the calls after it keep their OpenAI item ids (pairsCalls). */
  private pairsCalls = false;
  /** Images sent so far (each chunk's `images[].index`). */
  private images = 0;
  /** Characters of content sent so far, and the open text block (where its citations point). */
  private contentLength = 0;
  private text: { offset: number; length: number; citations: UrlCitation[] } | undefined;
  private detail: { index: number; format: string; id?: string } | undefined;
  /** The fixed head of a content chunk (id, created, model), made at the first one. */
  private head: string | undefined;
  /** The records of the part being encoded. */
  private out: SseRecord[] = [];

  constructor(
    private readonly includeUsage: boolean,
    private readonly ids: RequestIds,
    private readonly tools: ChatRequest['tools'],
    private readonly excludeReasoning: boolean,
  ) {}

  encode(part: StreamPart): SseRecord[] {
    if (this.done) return [];
    const out: SseRecord[] = (this.out = []);
    if (part.type === 'start') {
      this.id = prefixedId('chatcmpl-', part.id);
      this.model = part.model;
      this.created = part.created;
      this.head = undefined;
    }
    if (part.type === 'error') this.error(part.error);
    else {
      if (!this.started) this.roleChunk();
      this.body(part);
    }
    return out;
  }

  private body(part: StreamPart): void {
    switch (part.type) {
      case 'text-start':
        this.text = { offset: this.contentLength, length: 0, citations: [] };
        return;
      case 'text-delta':
        if (!part.text) return;
        if (part.logprobs) this.chunk({ content: part.text }, null, { content: encodeLogprobs(part.logprobs), refusal: null });
        else this.contentChunk(part.text);
        this.contentLength += part.text.length;
        if (this.text) this.text.length += part.text.length;
        return;
      case 'text-citation':
        this.text?.citations.push(part.citation);
        return;
      case 'text-end': {
        // Citations go out once their text is complete (a whole-block citation needs its length).
        const text = this.text;
        this.text = undefined;
        if (text && text.citations.length > 0) this.chunk({ annotations: text.citations.map((citation) => encodeChatAnnotation(citation, text.offset, text.length)) });
        return;
      }
      case 'refusal-delta':
        if (part.text) this.chunk({ refusal: part.text });
        return;
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-signature':
      case 'reasoning-end':
      case 'redacted-reasoning':
        if (this.excludeReasoning) return;
        this.reasoning(part);
        return;
      case 'tool-call-start': {
        const index = this.toolIndex.size;
        this.toolIndex.set(part.index, index);
        if (isCustomTool(part.name, this.tools)) {
          this.customCalls.set(part.index, { index, id: toolIdForClient(part.id, part.providerMetadata, this.pairsCalls ? part.itemId : undefined), name: part.name, args: '' });
          return;
        }
        this.argsPending.add(part.index);
        this.chunk({ tool_calls: [{ index, id: toolIdForClient(part.id, part.providerMetadata, this.pairsCalls ? part.itemId : undefined), type: 'function', function: { name: part.name, arguments: '' } }] });
        return;
      }
      case 'tool-call-delta': {
        const index = this.toolIndex.get(part.index);
        if (index === undefined || part.argumentsDelta === '') return;
        const custom = this.customCalls.get(part.index);
        if (custom) return void (custom.args += part.argumentsDelta);
        this.argsPending.delete(part.index);
        this.chunk({ tool_calls: [{ index, function: { arguments: part.argumentsDelta } }] });
        return;
      }
      case 'tool-call-end': {
        const custom = this.customCalls.get(part.index);
        if (custom) {
          this.customCalls.delete(part.index);
          this.chunk({ tool_calls: [{ index: custom.index, id: custom.id, type: 'custom', custom: { name: custom.name, input: customToolInput(custom.args) } }] });
          return;
        }
        // A call that got no argument text (a no-argument tool) still ends as valid JSON.
        const index = this.toolIndex.get(part.index);
        if (index === undefined || !this.argsPending.delete(part.index)) return;
        this.chunk({ tool_calls: [{ index, function: { arguments: '{}' } }] });
        return;
      }
      case 'image': {
        const url = mediaSourceToUrl(part.source);
        if (url !== undefined) this.chunk({ images: [chatImage(url, this.images++, part.providerMetadata)] });
        return;
      }
      case 'finish':
        this.finish(encodeChatFinishReason(part.finishReason));
        return;
      case 'usage':
        this.usage = part.usage;
        return;
      case 'end':
        this.end();
        return;
      default:
        return;
    }
  }

  private end(): void {
    this.done = true;
    if (!this.finished) this.finish('stop');
    if (this.includeUsage && this.usage) {
      this.out.push(jsonRecord(undefined, { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage: encodeChatUsage(this.usage) }));
    }
    this.out.push({ data: '[DONE]' });
  }

  private finish(reason: string): void {
    if (this.finished) return;
    this.finished = true;
    this.chunk({}, reason);
  }

  /**
   * A mid-stream error as OpenAI-style `data: {"error":…}`. No `[DONE]` follows: clients
   * treat the error as the end, and `[DONE]` would read as a normal completion.
   */
  private error(error: StreamError): void {
    this.done = true;
    this.out.push(encodeChatStreamError(gatewayErrorOf(error), this.ids));
  }

  /** A reasoning part as `reasoning_content` and `reasoning_details` deltas. */
  private reasoning(part: Extract<StreamPart, { type: 'reasoning-start' | 'reasoning-delta' | 'reasoning-signature' | 'reasoning-end' | 'redacted-reasoning' }>): void {
    switch (part.type) {
      case 'reasoning-start':
        this.detail = { index: this.nextDetail++, format: reasoningFormat(part), ...(part.itemId ? { id: part.itemId } : {}) };
        return;
      case 'reasoning-delta': {
        if (!part.text) return;
        const detail = this.currentDetail();
        this.chunk({ reasoning_content: part.text, reasoning_details: [{ type: 'reasoning.text', text: part.text, ...detail }] });
        return;
      }
      case 'reasoning-signature':
        this.details({ type: 'reasoning.text', text: '', signature: part.signature, ...this.currentDetail() });
        return;
      case 'reasoning-end': {
        // Provider metadata (a Gemini thought signature) rides as the detail's signature (shared/carry-opaque.ts).
        if (hasMetadata(part.providerMetadata)) this.details({ type: 'reasoning.text', text: '', signature: carryOpaque({ metadata: part.providerMetadata }), ...this.currentDetail() });
        const id = this.detail?.id;
        this.detail = undefined;
        if (part.encrypted === undefined) return;
        this.pairsCalls = true;
        this.details({ type: 'reasoning.encrypted', data: part.encrypted, format: OPENAI_REASONING_FORMAT, index: this.nextDetail++, ...(id ? { id } : {}) });
        return;
      }
      case 'redacted-reasoning':
        this.details({ type: 'reasoning.encrypted', data: part.data, format: ANTHROPIC_REASONING_FORMAT, index: this.nextDetail++ });
        return;
    }
  }

  /** The open reasoning detail's fields, in OpenRouter's key order (format, index, id). */
  private currentDetail(): { format: string; index: number; id?: string } {
    this.detail ??= { index: this.nextDetail++, format: UNKNOWN_REASONING_FORMAT };
    const { format, index, id } = this.detail;
    return id ? { format, index, id } : { format, index };
  }

  private details(detail: ChatReasoningDetail): void {
    this.chunk({ reasoning_details: [detail] });
  }

  private roleChunk(): void {
    this.started = true;
    this.chunk({ role: 'assistant', content: '' });
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null, logprobs: Record<string, unknown> | null = null): void {
    this.out.push(
      jsonRecord(undefined, {
        id: this.id,
        object: 'chat.completion.chunk',
        created: this.created,
        model: this.model,
        choices: [{ index: 0, delta, logprobs, finish_reason: finishReason }],
      }),
    );
  }

  /**
   * A content chunk, the record a stream is mostly made of: written as `chunk({ content })`
   * would write it (same keys, same order), with the chunk's fixed head made once per stream.
   */
  private contentChunk(text: string): void {
    this.head ??= `{"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${JSON.stringify(this.created)},"model":${JSON.stringify(this.model)},"choices":[{"index":0,"delta":{"content":`;
    this.out.push({ data: `${this.head}${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}` });
  }
}
