import type { RequestIds } from '../../errors/index.ts';
import type { ChatRequest, FinishReason, StreamError, StreamPart, Usage } from '../../ir/index.ts';
import { JsonLine, jsonRecord, type SseRecord } from '../../sse/index.ts';
import type { StreamEncoder } from '../types.ts';
import { carryOpaque, estimateInputTokens, gatewayErrorOf, hasMetadata, jsonStringContent, opaqueOfReasoning, prefixedId, toolIdForClient } from '../shared/index.ts';
import { encodeMessagesStreamError } from './encode-error.ts';
import { encodeMessagesStopDetails, encodeMessagesStopReason, refusalFinish } from './map-finish-reason.ts';
import { encodeMessagesUsage } from './map-usage.ts';
import type { MessagesUsage } from './types.ts';
import { clientCitation, encodeWebSearchBlocks } from './map-web-search.ts';

/** The data of `message_stop`, as JSON.stringify writes it; the same in every stream. */
const MESSAGE_STOP = JSON.stringify({ type: 'message_stop' });

/** A usage as JSON.stringify writes it: the usual four finite counts from a template, anything more by JSON.stringify. */
function usageJson(usage: MessagesUsage): string {
  const { input_tokens: input, output_tokens: output, cache_creation_input_tokens: written, cache_read_input_tokens: read } = usage;
  if (usage.cache_creation || usage.output_tokens_details || usage.server_tool_use || !(Number.isFinite(input) && Number.isFinite(output) && Number.isFinite(written) && Number.isFinite(read))) {
    return JSON.stringify(usage);
  }
  return `{"input_tokens":${input},"output_tokens":${output},"cache_creation_input_tokens":${written},"cache_read_input_tokens":${read}}`;
}

type Open = { kind: 'text' | 'thinking' | 'server' } | { kind: 'tool'; index: number };

// What a text or thinking delta opens when no such block is open: shared (read and serialized,
// never changed), so a delta into an open block builds nothing.
const TEXT: Open = { kind: 'text' };
const TEXT_BLOCK = { type: 'text', text: '' };
const THINKING: Open = { kind: 'thinking' };
const THINKING_BLOCK = { type: 'thinking', thinking: '', signature: '' };

/**
 * An encoder of IR stream parts into an Anthropic Messages stream (wire-formats §2.9, §4.8):
 * message_start, blocks with sequential indices from 0 (one open at a time), and
 * message_delta held back until usage is known (a Chat upstream sends usage after its
 * finish chunk), then message_stop.
 */
export function createMessagesStreamEncoder(request: ChatRequest, ids: RequestIds): StreamEncoder {
  return new MessagesStreamEncoder(request, ids);
}

class MessagesStreamEncoder implements StreamEncoder {
  private started = false;
  private done = false;
  private nextIndex = 0;
  /** A text delta's data up to its text's opening quote, made once per block (`textDeltaIndex`): each delta then joins three pieces. */
  private textDeltaHead = '';
  private textDeltaIndex = -1;
  private open: Open | undefined;
  private usage: Partial<Usage> = {};
  private finish: { reason: FinishReason; stopSequence?: string | null } | undefined;
  /** A refusal was streamed (its finish reads `refusal`: map-finish-reason refusalFinish). */
  private refused = false;
  private deltaSent = false;
  private reasoningItemId: string | undefined;
  /** An encrypted reasoning item went by: the calls after it keep their OpenAI item ids (pairsCalls). */
  private pairsCalls = false;
  /** The records of the part being encoded: made at the first one (most parts give one record, and `[record]` holds it exactly). */
  private out: SseRecord[] | undefined;

  constructor(
    private readonly request: ChatRequest,
    private readonly ids: RequestIds,
  ) {}

  encode(part: StreamPart): SseRecord[] {
    if (this.done) return [];
    this.out = undefined;
    if (part.type === 'error') this.error(part.error);
    else {
      if (!this.started) this.messageStart(part.type === 'start' ? part : undefined);
      this.body(part);
    }
    const out = this.out;
    this.out = undefined;
    return out ?? [];
  }

  private body(part: StreamPart): void {
    switch (part.type) {
      case 'text-start':
        // Opened lazily at the first text, so an empty text run leaves no empty block behind.
        return;
      case 'text-delta':
      case 'refusal-delta':
        if (!part.text) return;
        if (part.type === 'refusal-delta') this.refused = true;
        this.ensureOpen(TEXT, TEXT_BLOCK);
        this.textDelta(part.text);
        return;
      case 'text-end':
        if (this.open?.kind === 'text') this.close();
        return;
      case 'text-citation':
        this.ensureOpen({ kind: 'text' }, { type: 'text', text: '', citations: [] });
        this.delta({ type: 'citations_delta', citation: clientCitation(part.citation) });
        return;
      case 'web-search-start':
        // Anthropic's own sequence: server_tool_use with its input as one input_json_delta, then the result block.
        this.close();
        this.openBlock({ kind: 'server' }, { type: 'server_tool_use', id: part.id, name: 'web_search', input: {} });
        this.delta({ type: 'input_json_delta', partial_json: JSON.stringify({ query: part.query ?? '' }) });
        this.close();
        return;
      case 'web-search-end': {
        const result = encodeWebSearchBlocks(part.part, 'client')[1];
        this.close();
        if (!result) return;
        this.openBlock({ kind: 'server' }, result);
        this.close();
        return;
      }
      case 'reasoning-start':
        this.reasoningItemId = part.itemId;
        this.close();
        this.openBlock({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
        return;
      case 'reasoning-delta':
        if (!part.text) return;
        this.ensureOpen(THINKING, THINKING_BLOCK);
        this.delta({ type: 'thinking_delta', thinking: part.text });
        return;
      case 'reasoning-signature':
        if (this.open?.kind === 'thinking') this.delta({ type: 'signature_delta', signature: part.signature });
        return;
      case 'reasoning-end':
        if (this.open?.kind !== 'thinking') return;
        // OpenAI encrypted reasoning and provider metadata go out as the block's signature, so the client can send them back.
        if (part.encrypted !== undefined) this.pairsCalls = true;
        if (part.encrypted !== undefined || hasMetadata(part.providerMetadata)) {
          const carried = opaqueOfReasoning({ type: 'reasoning', text: '', itemId: this.reasoningItemId, encrypted: part.encrypted, providerMetadata: part.providerMetadata });
          this.delta({ type: 'signature_delta', signature: carryOpaque(carried) });
        }
        this.close();
        return;
      case 'redacted-reasoning':
        this.close();
        this.openBlock({ kind: 'thinking' }, { type: 'redacted_thinking', data: part.data });
        this.close();
        return;
      case 'tool-call-start':
        this.close();
        this.openBlock({ kind: 'tool', index: part.index }, { type: 'tool_use', id: toolIdForClient(part.id, part.providerMetadata, this.pairsCalls ? part.itemId : undefined), name: part.name, input: {} });
        return;
      case 'tool-call-delta':
        // Deltas only ever go to the open block; an empty fragment would be noise.
        if (part.argumentsDelta === '' || this.open?.kind !== 'tool' || this.open.index !== part.index) return;
        this.delta({ type: 'input_json_delta', partial_json: part.argumentsDelta });
        return;
      case 'tool-call-end':
        if (this.open?.kind === 'tool' && this.open.index === part.index) this.close();
        return;
      case 'finish':
        this.finish ??= { reason: part.finishReason, stopSequence: part.stopSequence };
        this.close();
        return;
      case 'usage':
        this.usage = part.usage;
        if (this.finish) this.messageDelta();
        return;
      case 'end':
        this.done = true;
        this.close();
        this.messageDelta();
        this.record(new JsonLine('message_stop', MESSAGE_STOP));
        return;
      default:
        return;
    }
  }

  /**
   * message_start and message_delta are written as JSON.stringify writes their event objects
   * (same keys, same order), stringifying only the values that vary: every stream has one of each.
   */
  private messageStart(start: (StreamPart & { type: 'start' }) | undefined): void {
    this.started = true;
    // Anthropic states the input count here, and LangChain's ChatAnthropic reads it only here: an
    // upstream that tells it only at the end (Chat, Responses, Bedrock) gets the request's estimate,
    // and message_delta its own count (which the SDKs and Claude Code take).
    const input = start?.usage?.inputTokens;
    this.usage = input !== undefined ? { ...start!.usage } : { ...start?.usage, inputTokens: estimateInputTokens(this.request) };
    const usage = encodeMessagesUsage(this.usage);
    usage.output_tokens = 0;
    const id = jsonStringContent(prefixedId('msg_', start?.id));
    const model = jsonStringContent(start?.model ?? '');
    this.record(
      new JsonLine(
        'message_start',
        `{"type":"message_start","message":{"id":"${id}","type":"message","role":"assistant","model":"${model}","content":[],"stop_reason":null,"stop_sequence":null,"usage":${usageJson(usage)}}}`,
      ),
    );
  }

  private messageDelta(): void {
    if (this.deltaSent) return;
    this.deltaSent = true;
    const given = this.finish ?? { reason: 'stop' as const };
    const finish = { ...given, reason: refusalFinish(given.reason, this.refused) };
    const stopReason = encodeMessagesStopReason(finish.reason, finish.stopSequence);
    const stopSequence = typeof finish.stopSequence === 'string' ? `"${jsonStringContent(finish.stopSequence)}"` : 'null';
    // stop_details as the API writes it (the SDK's MessageStream copies it into the message: undefined without it).
    const details = encodeMessagesStopDetails(finish.reason);
    const stopDetails = details ? JSON.stringify(details) : 'null';
    this.record(
      new JsonLine(
        'message_delta',
        `{"type":"message_delta","delta":{"stop_reason":"${stopReason}","stop_sequence":${stopSequence},"stop_details":${stopDetails}},"usage":${usageJson(encodeMessagesUsage(this.usage))}}`,
      ),
    );
  }

  private ensureOpen(open: Open, contentBlock: Record<string, unknown>): void {
    if (this.open?.kind === open.kind) return;
    this.close();
    this.openBlock(open, contentBlock);
  }

  private openBlock(open: Open, contentBlock: Record<string, unknown>): void {
    this.open = open;
    this.event('content_block_start', { type: 'content_block_start', index: this.nextIndex, content_block: contentBlock });
  }

  private delta(delta: Record<string, unknown>): void {
    this.event('content_block_delta', { type: 'content_block_delta', index: this.nextIndex, delta });
  }

  /**
   * A text delta, the record a stream is mostly made of: written as JSON.stringify would write
   * the object (same keys, same order), only the text escaped (jsonStringContent).
   */
  private textDelta(text: string): void {
    if (this.textDeltaIndex !== this.nextIndex) {
      this.textDeltaIndex = this.nextIndex;
      this.textDeltaHead = `{"type":"content_block_delta","index":${this.nextIndex},"delta":{"type":"text_delta","text":"`;
    }
    this.record(new JsonLine('content_block_delta', this.textDeltaHead + jsonStringContent(text) + '"}}'));
  }

  private close(): void {
    if (!this.open) return;
    this.open = undefined;
    // As JSON.stringify writes { type: 'content_block_stop', index }, without building the object.
    this.record(new JsonLine('content_block_stop', `{"type":"content_block_stop","index":${this.nextIndex++}}`));
  }

  /** A mid-stream error as Anthropic sends it: `event: error`; the stream ends there. */
  private error(error: StreamError): void {
    this.done = true;
    this.record(encodeMessagesStreamError(gatewayErrorOf(error), this.ids));
  }

  private event(name: string, data: unknown): void {
    this.record(jsonRecord(name, data));
  }

  private record(record: SseRecord): void {
    if (this.out) this.out.push(record);
    else this.out = [record];
  }
}
