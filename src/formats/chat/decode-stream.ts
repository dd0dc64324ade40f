import type { FinishReason, StreamPart, TokenLogprob, Usage } from '../../ir/index.ts';
import type { SseRecord } from '../../sse/index.ts';
import type { StreamDecoder } from '../types.ts';
import { decodeLogprobs, generateId, isRecord, nowSeconds, readNumber, readString, streamErrorFromUpstream, tryParseJson } from '../shared/index.ts';
import { decodeChatFinishReason, decodeChatStopSequence } from './map-finish-reason.ts';
import { decodeChatUsage } from './map-usage.ts';
import { madeImages } from './decode-response.ts';
import { plainReasoningMetadata } from './map-reasoning.ts';
import { captureEnvelope, readContentChunk, readFinishChunk, readUsageChunk, type ChunkEnvelope } from './read-content-chunk.ts';

/** Parsed chunks an envelope is taken from before the decoder stops trying (an upstream whose envelopes differ chunk by chunk). */
const ENVELOPE_TRIES = 3;

/** A decoder for an upstream Chat Completions stream (wire-formats §1.8). */
export function createChatStreamDecoder(): StreamDecoder {
  return new ChatStreamDecoder();
}

class ChatStreamDecoder implements StreamDecoder {
  /** The parts of the record being decoded: made at the first one (most records give one part, and `[part]` holds it exactly). */
  private out: StreamPart[] | undefined;
  private started = false;
  private open: 'text' | 'reasoning' | undefined;
  /** The open reasoning block is plain `reasoning_content` text, nothing signed: marked with the model at its end (map-reasoning.ts). */
  private plainReasoning = false;
  private model = '';
  private reasoningIndex: unknown;
  private readonly toolIndex = new Map<unknown, number>();
  private lastToolKey: unknown;
  private openTool: number | undefined;
  /**
   * Calls that started while another was open, with their fragments: held whole until the open
   * one ends. GPT may start parallel calls in one chunk and interleave their fragments, while the
   * IR's blocks (and Anthropic's) are sequential: a fragment for a call already ended would be lost.
   */
  private readonly heldTools: Array<{ start: StreamPart & { type: 'tool-call-start' }; args: string[] }> = [];
  private finished = false;
  private done = false;
  private usage: Usage | undefined;
  /** The envelope text of the chunks read without JSON.parse (read-content-chunk.ts). */
  private envelope: ChunkEnvelope | undefined;
  private envelopeTries = 0;

  push(record: SseRecord): StreamPart[] {
    if (this.done) return [];
    if (this.envelope !== undefined && record.event === undefined) {
      const content = readContentChunk(record.data, this.envelope);
      if (content !== undefined) {
        this.text(content);
        return this.flush();
      }
      const reason = readFinishChunk(record.data, this.envelope);
      if (reason !== undefined) {
        if (!this.finished) this.finish(decodeChatFinishReason(reason));
        return this.flush();
      }
      const usage = readUsageChunk(record.data, this.envelope);
      if (usage !== undefined) {
        this.usage = decodeChatUsage(usage) ?? this.usage;
        return this.flush();
      }
    }
    if (record.data.trim() === '[DONE]') {
      if (!this.finished) this.finish('stop');
      return this.complete();
    }
    const chunk = tryParseJson(record.data);
    if (!isRecord(chunk)) return [];
    if (record.event === 'error' || chunk.error !== undefined) return this.fail(chunk.error ?? chunk);
    // Not a completion chunk (some providers add their own events); usage-only chunks still count.
    if (!Array.isArray(chunk.choices) && !isRecord(chunk.usage)) return [];
    if (!this.started) {
      this.started = true;
      this.model = readString(chunk, 'model') ?? '';
      this.emit({ type: 'start', id: readString(chunk, 'id') ?? generateId('chatcmpl-'), model: this.model, created: readNumber(chunk, 'created') ?? nowSeconds() });
    }
    if (this.envelope === undefined && this.envelopeTries < ENVELOPE_TRIES && record.event === undefined) {
      this.envelopeTries += 1;
      this.envelope = captureEnvelope(record.data);
    }
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isRecord(c) && (c.index ?? 0) === 0) : undefined;
    if (isRecord(choice)) {
      if (isRecord(choice.delta)) this.delta(choice.delta, isRecord(choice.logprobs) ? decodeLogprobs(choice.logprobs.content) : undefined);
      if (typeof choice.finish_reason === 'string' && !this.finished) {
        const reason = decodeChatFinishReason(choice.finish_reason);
        this.finish(reason, decodeChatStopSequence(choice, reason));
      }
    }
    const usage = decodeChatUsage(chunk.usage);
    if (usage) this.usage = usage;
    return this.flush();
  }

  end(): StreamPart[] {
    if (this.done) return [];
    if (this.finished) return this.complete();
    this.done = true;
    this.closeBlocks();
    this.emit({ type: 'error', error: streamErrorFromUpstream(undefined, 'The upstream stream ended before it finished.') });
    return this.flush();
  }

  private delta(delta: Record<string, unknown>, logprobs?: TokenLogprob[]): void {
    const details = Array.isArray(delta.reasoning_details) ? delta.reasoning_details.filter(isRecord) : [];
    // OpenRouter repeats the text in `reasoning` and `reasoning_details`: the details win.
    if (details.length > 0) for (const detail of details) this.reasoningDetail(detail);
    else {
      // LiteLLM repeats the text in `thinking_blocks`, which also carry the signature: text from one place only.
      const blocks = Array.isArray(delta.thinking_blocks) ? delta.thinking_blocks.filter(isRecord) : [];
      const text = readString(delta, 'reasoning_content') ?? readString(delta, 'reasoning');
      if (text) this.reasoningText(text, undefined, undefined, blocks.length === 0);
      for (const block of blocks) this.thinkingBlock(block, !text);
    }
    const content = readString(delta, 'content');
    if (content) this.text(content, logprobs);
    const refusal = readString(delta, 'refusal');
    if (refusal) this.emit({ type: 'refusal-delta', text: refusal });
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.toolCall(call);
    for (const image of madeImages(delta.images)) {
      this.closeBlocks();
      this.emit(image.providerMetadata ? { type: 'image', source: image.source, providerMetadata: image.providerMetadata } : { type: 'image', source: image.source });
    }
  }

  /** Text content (from a parsed delta or a chunk read as text): opens the text block if another is open. */
  private text(content: string, logprobs?: TokenLogprob[]): void {
    if (!content) return;
    if (this.open !== 'text') {
      this.closeBlocks();
      this.open = 'text';
      this.emit({ type: 'text-start' });
    }
    this.emit(logprobs ? { type: 'text-delta', text: content, logprobs } : { type: 'text-delta', text: content });
  }

  private reasoningDetail(detail: Record<string, unknown>): void {
    const id = readString(detail, 'id');
    if (detail.type === 'reasoning.text' || detail.type === 'reasoning.summary') {
      const text = readString(detail, detail.type === 'reasoning.text' ? 'text' : 'summary') ?? '';
      this.reasoningText(text, detail.index, id);
      const signature = readString(detail, 'signature');
      if (signature) this.emit({ type: 'reasoning-signature', signature });
    } else if (detail.type === 'reasoning.encrypted') {
      const data = readString(detail, 'data') ?? '';
      if (!readString(detail, 'format')?.startsWith('openai')) {
        this.closeBlocks();
        this.emit({ type: 'redacted-reasoning', data });
        return;
      }
      if (this.open !== 'reasoning') this.reasoningText('', detail.index, id);
      this.open = undefined;
      this.emit({ type: 'reasoning-end', encrypted: data });
    }
  }

  /** A LiteLLM `thinking_blocks` delta item: its text (when not given elsewhere), signature or redacted data. */
  private thinkingBlock(block: Record<string, unknown>, withText: boolean): void {
    if (block.type === 'redacted_thinking') {
      this.closeBlocks();
      this.emit({ type: 'redacted-reasoning', data: readString(block, 'data') ?? '' });
      return;
    }
    if (block.type !== 'thinking') return;
    const text = withText ? (readString(block, 'thinking') ?? '') : '';
    const signature = readString(block, 'signature');
    if (text || signature) this.reasoningText(text, undefined, undefined);
    if (signature) this.emit({ type: 'reasoning-signature', signature });
  }

  /**
   * Opens a reasoning block when none is open or a detail with another index starts one.
   * Details are grouped by `index`: text streamed as plain `reasoning_content` (no index)
   * followed by a signature-only detail (index 0) is one block, the signature closing it.
   */
  private reasoningText(text: string, index: unknown, itemId: string | undefined, plain = false): void {
    const otherBlock = index !== undefined && this.reasoningIndex !== undefined && index !== this.reasoningIndex;
    if (this.open !== 'reasoning' || otherBlock) {
      this.closeBlocks();
      this.open = 'reasoning';
      this.reasoningIndex = undefined;
      this.plainReasoning = plain;
      this.emit(itemId ? { type: 'reasoning-start', itemId } : { type: 'reasoning-start' });
    } else if (!plain) this.plainReasoning = false;
    if (index !== undefined) this.reasoningIndex = index;
    if (text) this.emit({ type: 'reasoning-delta', text });
  }

  private toolCall(call: Record<string, unknown>): void {
    const fn = isRecord(call.function) ? call.function : {};
    const id = readString(call, 'id');
    // Some providers omit `index` and send each call whole, each with its own id.
    const key = typeof call.index === 'number' ? call.index : id !== undefined ? `id:${id}` : this.lastToolKey;
    let index = this.toolIndex.get(key);
    if (index === undefined) {
      index = this.toolIndex.size;
      this.toolIndex.set(key, index);
      const start = { type: 'tool-call-start', index, id: id ?? generateId('call_'), name: readString(fn, 'name') ?? '' } as const;
      if (this.openTool !== undefined) this.heldTools.push({ start, args: [] });
      else {
        this.closeBlocks();
        this.openTool = index;
        this.emit(start);
      }
    }
    this.lastToolKey = key;
    const args = readString(fn, 'arguments');
    if (!args) return;
    if (index === this.openTool) this.emit({ type: 'tool-call-delta', index, argumentsDelta: args });
    else this.heldTools.find((held) => held.start.index === index)?.args.push(args);
  }

  private finish(reason: FinishReason, stopSequence?: string): void {
    this.closeBlocks();
    this.finished = true;
    this.emit(stopSequence === undefined ? { type: 'finish', finishReason: reason } : { type: 'finish', finishReason: reason, stopSequence });
  }

  private complete(): StreamPart[] {
    this.done = true;
    this.closeBlocks();
    if (this.usage) this.emit({ type: 'usage', usage: this.usage });
    this.emit({ type: 'end' });
    return this.flush();
  }

  private fail(error: unknown): StreamPart[] {
    this.done = true;
    const body = isRecord(error) ? error : {};
    const code = readString(body, 'code');
    this.emit({ type: 'error', error: streamErrorFromUpstream(readString(body, 'type'), readString(body, 'message') ?? '', code, readString(body, 'param')) });
    return this.flush();
  }

  /** Closes the open text/reasoning block and the open tool call, then gives out the held calls whole (blocks are sequential in the IR). */
  private closeBlocks(): void {
    if (this.open === 'text') this.emit({ type: 'text-end' });
    if (this.open === 'reasoning') {
      const plain = this.plainReasoning ? plainReasoningMetadata(this.model) : undefined;
      this.emit(plain ? { type: 'reasoning-end', providerMetadata: plain } : { type: 'reasoning-end' });
    }
    this.open = undefined;
    this.plainReasoning = false;
    if (this.openTool !== undefined) this.emit({ type: 'tool-call-end', index: this.openTool });
    this.openTool = undefined;
    for (const { start, args } of this.heldTools) {
      this.emit(start);
      for (const argumentsDelta of args) this.emit({ type: 'tool-call-delta', index: start.index, argumentsDelta });
      this.emit({ type: 'tool-call-end', index: start.index });
    }
    this.heldTools.length = 0;
  }

  private emit(part: StreamPart): void {
    if (this.out) this.out.push(part);
    else this.out = [part];
  }

  private flush(): StreamPart[] {
    const out = this.out;
    this.out = undefined;
    return out ?? [];
  }
}
