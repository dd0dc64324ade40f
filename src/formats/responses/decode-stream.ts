import type { StreamPart } from '../../ir/index.ts';
import type { SseRecord } from '../../sse/index.ts';
import { annotationToCitation, decodeWebSearchCall } from './map-web-search.ts';
import { imageFromItem } from './decode-output.ts';
import { decodeLogprobs, isRecord, readNumber, readRecord, readString, streamErrorFromUpstream, tryParseJson } from '../shared/index.ts';
import type { StreamDecoder } from '../types.ts';
import { finishForStatus } from './map-status.ts';
import { decodeResponseUsage } from './map-usage.ts';
import { StreamBlocks, type CallState, type ItemState, type MessageState, type ReasoningState } from './decode-stream-blocks.ts';

type Data = Record<string, unknown>;

/**
 * Responses SSE → IR stream parts. Tolerates unknown events and fields (obfuscation, queued,
 * in_progress, hosted-tool events) and upstreams that skip deltas and only send `.done` events.
 */
class ResponsesStreamDecoder implements StreamDecoder {
  private started = false;
  private ended = false;
  private errored = false;
  private sawToolCall = false;
  /** `web_search_call` items done: billed per call, counted into the usage at the end. */
  private searchCalls = 0;
  private nextToolIndex = 0;
  private readonly blocks = new StreamBlocks();
  private readonly byIndex = new Map<number, ItemState>();
  private readonly byId = new Map<string, ItemState>();

  push(record: SseRecord): StreamPart[] {
    if (this.ended) return [];
    const data = tryParseJson(record.data);
    if (!isRecord(data)) return [];
    const type = readString(data, 'type') ?? record.event;
    const out: StreamPart[] = [];
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        this.start(readRecord(data, 'response'), out);
        break;
      case 'response.output_item.added':
        this.itemAdded(data, out);
        break;
      case 'response.content_part.added':
        if (readRecord(data, 'part')?.type === 'output_text') this.blocks.openText(this.message(data), out);
        break;
      case 'response.output_text.delta':
        this.blocks.textDelta(this.message(data), readString(data, 'delta') ?? '', out, decodeLogprobs(data.logprobs));
        break;
      case 'response.output_text.done':
        this.blocks.textDone(this.message(data), readString(data, 'text') ?? '', out);
        break;
      case 'response.content_part.done': {
        const part = readRecord(data, 'part');
        if (part?.type === 'output_text') this.blocks.textDone(this.message(data), readString(part, 'text') ?? '', out);
        break;
      }
      case 'response.refusal.delta':
        this.blocks.refusal(this.message(data), readString(data, 'delta') ?? '', false, out);
        break;
      case 'response.refusal.done':
        this.blocks.refusal(this.message(data), readString(data, 'refusal') ?? '', true, out);
        break;
      case 'response.function_call_arguments.delta':
        this.blocks.argsDelta(this.call(data), readString(data, 'delta') ?? '', out);
        break;
      case 'response.function_call_arguments.done':
        this.blocks.endCall(this.call(data), readString(data, 'arguments') ?? '', out);
        break;
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_text.added':
        this.blocks.reasoningPart(this.reasoning(data));
        break;
      case 'response.reasoning_summary_text.delta':
        this.blocks.reasoningDelta(this.reasoning(data), 'summary', readString(data, 'delta') ?? '', false, out);
        break;
      case 'response.reasoning_summary_text.done':
        this.blocks.reasoningDelta(this.reasoning(data), 'summary', readString(data, 'text') ?? '', true, out);
        break;
      case 'response.reasoning_text.delta':
        this.blocks.reasoningDelta(this.reasoning(data), 'text', readString(data, 'delta') ?? '', false, out);
        break;
      case 'response.reasoning_text.done':
        this.blocks.reasoningDelta(this.reasoning(data), 'text', readString(data, 'text') ?? '', true, out);
        break;
      case 'response.output_item.done':
        this.itemDone(data, out);
        break;
      case 'response.output_text.annotation.added': {
        const annotation = readRecord(data, 'annotation');
        const citation = annotation && annotationToCitation(annotation);
        // Only inside the text it annotates (a late one, after the text closed, has nowhere to go).
        const message = this.message(data);
        if (citation && message && this.blocks.isOpen(message)) out.push({ type: 'text-citation', citation });
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
        this.finish(readRecord(data, 'response') ?? {}, out);
        break;
      case 'response.failed':
        this.failed(readRecord(data, 'response') ?? {}, out);
        break;
      case 'error':
        this.error(data, out);
        break;
      default:
        break; // pitfall 13: new event types keep appearing
    }
    return out;
  }

  end(): StreamPart[] {
    if (this.ended) return [];
    this.ended = true;
    const out: StreamPart[] = [];
    // After an upstream error the open blocks stay open, as the other decoders leave them (and Anthropic's own stream does):
    // a client that reads a closed block as finished keeps a cut answer (Claude Code took it for a turn and asked on).
    if (!this.errored) {
      this.blocks.closeOpen(out);
      out.push({ type: 'error', error: { code: 'provider_error', message: 'The upstream stream ended before response.completed.', status: 502 } });
    }
    out.push({ type: 'end' });
    return out;
  }

  private start(response: Data | undefined, out: StreamPart[]): void {
    if (this.started) return;
    this.started = true;
    out.push({
      type: 'start',
      id: (response && readString(response, 'id')) ?? '',
      model: (response && readString(response, 'model')) ?? '',
      created: (response && readNumber(response, 'created_at')) ?? Math.floor(Date.now() / 1000),
    });
  }

  private lookup(data: Data): ItemState | undefined {
    const index = readNumber(data, 'output_index');
    const byIndex = index === undefined ? undefined : this.byIndex.get(index);
    if (byIndex) return byIndex;
    const id = readString(data, 'item_id');
    return id === undefined ? undefined : this.byId.get(id);
  }

  private message(data: Data): MessageState | undefined {
    const state = this.lookup(data);
    return state?.kind === 'message' ? state : undefined;
  }

  private call(data: Data): CallState | undefined {
    const state = this.lookup(data);
    return state?.kind === 'function_call' ? state : undefined;
  }

  private reasoning(data: Data): ReasoningState | undefined {
    const state = this.lookup(data);
    return state?.kind === 'reasoning' ? state : undefined;
  }

  private itemAdded(data: Data, out: StreamPart[]): void {
    const item = readRecord(data, 'item') ?? {};
    const id = readString(item, 'id');
    let state: ItemState;
    this.start(undefined, out);
    if (item.type === 'message') {
      state = { kind: 'message', textOpen: false, partText: '', sawText: false, sawRefusal: false, ...(id ? { itemId: id } : {}) };
    } else if (item.type === 'function_call') {
      this.blocks.closeOpen(out);
      this.sawToolCall = true;
      state = { kind: 'function_call', index: this.nextToolIndex++, args: '', ended: false };
      const callId = readString(item, 'call_id') ?? id ?? '';
      out.push({ type: 'tool-call-start', index: state.index, id: callId, name: readString(item, 'name') ?? '', ...(id ? { itemId: id } : {}) });
      this.blocks.argsDelta(state, readString(item, 'arguments') ?? '', out);
    } else if (item.type === 'reasoning') {
      this.blocks.closeOpen(out);
      state = { kind: 'reasoning', id, started: false, text: '', partText: '', separate: false };
    } else {
      state = { kind: 'other' };
    }
    const index = readNumber(data, 'output_index');
    if (index !== undefined) this.byIndex.set(index, state);
    if (id !== undefined) this.byId.set(id, state);
  }

  private itemDone(data: Data, out: StreamPart[]): void {
    const item = readRecord(data, 'item') ?? {};
    const state = this.lookup({ output_index: data.output_index, item_id: item.id });
    if (state?.kind === 'message') {
      for (const raw of Array.isArray(item.content) ? item.content : []) {
        if (!isRecord(raw)) continue;
        if (raw.type === 'output_text' && !state.sawText) this.blocks.textDone(state, readString(raw, 'text') ?? '', out);
        if (raw.type === 'refusal') this.blocks.refusal(state, readString(raw, 'refusal') ?? '', true, out);
      }
      if (this.blocks.isOpen(state)) this.blocks.closeOpen(out);
    } else if (state?.kind === 'function_call') {
      this.blocks.endCall(state, readString(item, 'arguments') ?? '', out);
    } else if (state?.kind === 'reasoning') {
      this.blocks.reasoningDone(state, item, out);
    } else if (item.type === 'image_generation_call') {
      // OpenAI's hosted image tool: the finished image comes whole here (partial images are drafts, left out).
      const image = imageFromItem(item);
      if (image) {
        this.blocks.closeOpen(out);
        out.push({ type: 'image', source: image.source });
      }
    } else if (item.type === 'web_search_call') {
      this.searchCalls++;
      this.blocks.closeOpen(out);
      const part = decodeWebSearchCall(item);
      out.push({ type: 'web-search-start', id: part.id, ...(part.query !== undefined ? { query: part.query } : {}) }, { type: 'web-search-end', part });
    }
  }

  private closeAll(out: StreamPart[]): void {
    this.blocks.closeOpen(out);
    for (const state of this.byIndex.values()) if (state.kind === 'function_call') this.blocks.endCall(state, '', out);
  }

  private finish(response: Data, out: StreamPart[]): void {
    this.start(response, out);
    this.closeAll(out);
    const reason = readString(readRecord(response, 'incomplete_details') ?? {}, 'reason');
    out.push({ type: 'finish', finishReason: finishForStatus(readString(response, 'status') ?? 'completed', reason, this.sawToolCall) });
    const usage = decodeResponseUsage(response, this.searchCalls);
    if (usage) out.push({ type: 'usage', usage });
    out.push({ type: 'end' });
    this.ended = true;
  }

  private failed(response: Data, out: StreamPart[]): void {
    if (!this.errored) {
      const error = readRecord(response, 'error') ?? {};
      const message = readString(error, 'message') ?? 'The upstream response failed.';
      out.push({ type: 'error', error: streamErrorFromUpstream(readString(error, 'type'), message, readString(error, 'code'), readString(error, 'param')) });
    }
    // What the failed response used (its tokens, its web searches) is billed as a passthrough bills
    // it; after the error, so a client's encoder has already ended its answer.
    const usage = decodeResponseUsage(response, this.searchCalls);
    if (usage) out.push({ type: 'usage', usage });
    out.push({ type: 'end' });
    this.ended = true;
  }

  /** `error` events come flat (`code`, `message`) or nested (`error:{type,code,message}`). */
  private error(data: Data, out: StreamPart[]): void {
    if (this.errored) return;
    this.errored = true;
    const nested = readRecord(data, 'error') ?? {};
    const message = readString(data, 'message') ?? readString(nested, 'message') ?? 'The upstream reported an error.';
    // The kind is in the nested error's `type`, or only in `code` (flat or nested).
    const code = readString(data, 'code') ?? readString(nested, 'code');
    const param = readString(data, 'param') ?? readString(nested, 'param');
    out.push({ type: 'error', error: streamErrorFromUpstream(readString(nested, 'type'), message, code, param) });
  }
}

/** A decoder for one upstream Responses stream. */
export function createResponsesStreamDecoder(): StreamDecoder {
  return new ResponsesStreamDecoder();
}
