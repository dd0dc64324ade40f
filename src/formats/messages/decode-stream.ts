import type { StreamPart } from '../../ir/index.ts';
import type { SseRecord } from '../../sse/index.ts';
import type { StreamDecoder } from '../types.ts';
import { isRecord, nowSeconds, readString, streamErrorFromUpstream, tryParseJson } from '../shared/index.ts';
import { decodeMessagesStopReason } from './map-finish-reason.ts';
import { decodeMessagesUsage, mergeMessagesUsage } from './map-usage.ts';
import { decodeCitations, decodeWebSearchResult } from './map-web-search.ts';

type Block = { kind: 'search'; id: string; json: string; startInput: unknown } | { kind: 'text' } | { kind: 'reasoning' } | { kind: 'tool'; index: number; startInput?: string; sawArgs: boolean } | { kind: 'skip' };

/** A decoder for an upstream Anthropic Messages stream (wire-formats §2.9). */
export function createMessagesStreamDecoder(): StreamDecoder {
  return new MessagesStreamDecoder();
}

class MessagesStreamDecoder implements StreamDecoder {
  private out: StreamPart[] = [];
  private readonly blocks = new Map<number, Block>();
  private nextTool = 0;
  /** Queries of the web searches begun, by call id (their result blocks come after). */
  private readonly queries = new Map<string, string | undefined>();
  private usage: Record<string, unknown> = {};
  private hasUsage = false;
  private finished = false;
  private done = false;

  push(record: SseRecord): StreamPart[] {
    if (this.done) return [];
    const event = tryParseJson(record.data);
    if (!isRecord(event)) return [];
    const type = record.event ?? readString(event, 'type') ?? (isRecord(event.error) ? 'error' : undefined);
    switch (type) {
      case 'message_start':
        this.start(isRecord(event.message) ? event.message : {});
        break;
      case 'content_block_start':
        this.blockStart(event);
        break;
      case 'content_block_delta':
        this.blockDelta(event);
        break;
      case 'content_block_stop':
        this.blockStop(event.index);
        break;
      case 'message_delta':
        this.messageDelta(event);
        break;
      case 'message_stop':
        return this.complete();
      case 'error': {
        this.done = true;
        const error = isRecord(event.error) ? event.error : {};
        // The upstream's status where a gateway's error envelope names it (a Bedrock InvokeModel upstream's originalStatusCode).
        const status = isRecord(error.details) ? error.details.upstream_status : undefined;
        this.emit({ type: 'error', error: streamErrorFromUpstream(readString(error, 'type'), readString(error, 'message') ?? '', undefined, undefined, typeof status === 'number' ? status : undefined) });
        break;
      }
      default:
        break; // ping and event types we do not know yet
    }
    return this.flush();
  }

  end(): StreamPart[] {
    if (this.done) return [];
    if (this.finished) return this.complete();
    this.done = true;
    this.closeAll();
    this.emit({ type: 'error', error: streamErrorFromUpstream(undefined, 'The upstream stream ended before it finished.') });
    return this.flush();
  }

  private start(message: Record<string, unknown>): void {
    this.usage = mergeMessagesUsage({}, message.usage);
    this.hasUsage = isRecord(message.usage);
    const part: StreamPart = { type: 'start', id: readString(message, 'id') ?? '', model: readString(message, 'model') ?? '', created: nowSeconds() };
    const usage = decodeMessagesUsage(message.usage);
    if (usage) {
      part.usage = { inputTokens: usage.inputTokens };
      if (usage.cacheReadTokens) part.usage.cacheReadTokens = usage.cacheReadTokens;
      if (usage.cacheWriteTokens) part.usage.cacheWriteTokens = usage.cacheWriteTokens;
      if (usage.cacheWrite1hTokens) part.usage.cacheWrite1hTokens = usage.cacheWrite1hTokens;
    }
    this.emit(part);
  }

  private blockStart(event: Record<string, unknown>): void {
    const index = typeof event.index === 'number' ? event.index : this.blocks.size;
    const block = isRecord(event.content_block) ? event.content_block : {};
    switch (block.type) {
      case 'text': {
        this.blocks.set(index, { kind: 'text' });
        this.emit({ type: 'text-start' });
        const text = readString(block, 'text');
        if (text) this.emit({ type: 'text-delta', text });
        return;
      }
      case 'thinking': {
        this.blocks.set(index, { kind: 'reasoning' });
        // Anthropic's thinking, whose signature comes last: a Chat client's detail is labelled Anthropic's from the start.
        this.emit({ type: 'reasoning-start', origin: 'anthropic' });
        const text = readString(block, 'thinking');
        const signature = readString(block, 'signature');
        if (text) this.emit({ type: 'reasoning-delta', text });
        if (signature) this.emit({ type: 'reasoning-signature', signature });
        return;
      }
      case 'redacted_thinking':
        this.blocks.set(index, { kind: 'skip' });
        this.emit({ type: 'redacted-reasoning', data: readString(block, 'data') ?? '' });
        return;
      case 'tool_use': {
        // The `input:{}` here is a placeholder: the arguments arrive as input_json_delta.
        // Only a non-empty input (some compatible providers send it whole) is kept, in case no delta follows.
        const input = isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : undefined;
        const tool: Block = { kind: 'tool', index: this.nextTool++, sawArgs: false, ...(input ? { startInput: input } : {}) };
        this.blocks.set(index, tool);
        this.emit({ type: 'tool-call-start', index: tool.index, id: readString(block, 'id') ?? '', name: readString(block, 'name') ?? '' });
        return;
      }
      case 'server_tool_use':
        // Its input comes as input_json_delta; a whole input on the start (some providers) is kept in case none does.
        this.blocks.set(index, block.name === 'web_search' && typeof block.id === 'string' ? { kind: 'search', id: block.id, json: '', startInput: block.input } : { kind: 'skip' });
        return;
      case 'web_search_tool_result': {
        this.blocks.set(index, { kind: 'skip' });
        const part = decodeWebSearchResult(block);
        if (!part) return;
        const query = this.queries.get(part.id);
        if (query !== undefined) part.query = query;
        this.emit({ type: 'web-search-end', part });
        return;
      }
      default:
        this.blocks.set(index, { kind: 'skip' }); // other server-tool and unknown blocks
    }
  }

  private blockDelta(event: Record<string, unknown>): void {
    const block = this.blocks.get(event.index as number);
    const delta = isRecord(event.delta) ? event.delta : {};
    if (!block) return;
    if (delta.type === 'text_delta' && block.kind === 'text') {
      const text = readString(delta, 'text');
      if (text) this.emit({ type: 'text-delta', text });
    } else if (delta.type === 'thinking_delta' && block.kind === 'reasoning') {
      const text = readString(delta, 'thinking');
      if (text) this.emit({ type: 'reasoning-delta', text });
    } else if (delta.type === 'signature_delta' && block.kind === 'reasoning') {
      const signature = readString(delta, 'signature');
      if (signature) this.emit({ type: 'reasoning-signature', signature });
    } else if (delta.type === 'citations_delta' && block.kind === 'text') {
      const citation = decodeCitations([delta.citation])?.[0];
      if (citation) this.emit({ type: 'text-citation', citation });
    } else if (delta.type === 'input_json_delta' && block.kind === 'search') {
      block.json += readString(delta, 'partial_json') ?? '';
    } else if (delta.type === 'input_json_delta' && block.kind === 'tool') {
      const json = readString(delta, 'partial_json');
      if (json) {
        block.sawArgs = true;
        this.emit({ type: 'tool-call-delta', index: block.index, argumentsDelta: json });
      }
    }
  }

  private blockStop(index: unknown): void {
    const block = this.blocks.get(index as number);
    if (!block) return;
    this.blocks.delete(index as number);
    this.closeBlock(block);
  }

  private closeBlock(block: Block): void {
    if (block.kind === 'search') {
      const input = block.json === '' ? block.startInput : tryParseJson(block.json);
      const query = isRecord(input) ? readString(input, 'query') : undefined;
      this.queries.set(block.id, query);
      this.emit({ type: 'web-search-start', id: block.id, ...(query !== undefined ? { query } : {}) });
    } else if (block.kind === 'text') this.emit({ type: 'text-end' });
    else if (block.kind === 'reasoning') this.emit({ type: 'reasoning-end' });
    else if (block.kind === 'tool') {
      if (!block.sawArgs && block.startInput) this.emit({ type: 'tool-call-delta', index: block.index, argumentsDelta: block.startInput });
      this.emit({ type: 'tool-call-end', index: block.index });
    }
  }

  private messageDelta(event: Record<string, unknown>): void {
    if (isRecord(event.usage)) {
      this.usage = mergeMessagesUsage(this.usage, event.usage);
      this.hasUsage = true;
    }
    const delta = isRecord(event.delta) ? event.delta : {};
    if (this.finished || delta.stop_reason === undefined || delta.stop_reason === null) return;
    this.closeAll();
    this.finished = true;
    const stopSequence = readString(delta, 'stop_sequence');
    this.emit({ type: 'finish', finishReason: decodeMessagesStopReason(delta.stop_reason), ...(stopSequence ? { stopSequence } : {}) });
  }

  private complete(): StreamPart[] {
    this.done = true;
    this.closeAll();
    if (!this.finished) this.emit({ type: 'finish', finishReason: 'stop' });
    const usage = this.hasUsage ? decodeMessagesUsage(this.usage) : undefined;
    if (usage) this.emit({ type: 'usage', usage });
    this.emit({ type: 'end' });
    return this.flush();
  }

  private closeAll(): void {
    for (const block of this.blocks.values()) this.closeBlock(block);
    this.blocks.clear();
  }

  private emit(part: StreamPart): void {
    this.out.push(part);
  }

  private flush(): StreamPart[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}
