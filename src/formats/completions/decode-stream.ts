import type { FinishReason, StreamPart, Usage } from '../../ir/index.ts';
import type { SseRecord } from '../../sse/index.ts';
import type { StreamDecoder } from '../types.ts';
import { decodeChatUsage } from '../chat/index.ts';
import { generateId, isBareWord, isRecord, nowSeconds, readNumber, readString, streamErrorFromUpstream, tryParseJson } from '../shared/index.ts';
import { decodeCompletionsFinishReason } from './map-response.ts';

/** A decoder for an upstream legacy Completions stream (`text_completion` chunks, `[DONE]`). */
export function createCompletionsStreamDecoder(): StreamDecoder {
  return new CompletionsStreamDecoder();
}

class CompletionsStreamDecoder implements StreamDecoder {
  private out: StreamPart[] = [];
  private started = false;
  private open = false;
  private finished = false;
  private done = false;
  private usage: Usage | undefined;

  push(record: SseRecord): StreamPart[] {
    if (this.done) return [];
    this.out = [];
    if (isBareWord(record.data, '[DONE]')) {
      if (!this.finished) this.finish('stop');
      return this.complete();
    }
    const chunk = tryParseJson(record.data);
    if (!isRecord(chunk)) return [];
    if (record.event === 'error' || chunk.error !== undefined) {
      this.done = true;
      this.close();
      const error = isRecord(chunk.error) ? chunk.error : chunk;
      this.out.push({ type: 'error', error: streamErrorFromUpstream(readString(error, 'type'), readString(error, 'message') ?? '', readString(error, 'code'), readString(error, 'param')) });
      return this.out;
    }
    if (!Array.isArray(chunk.choices) && !isRecord(chunk.usage)) return [];
    if (!this.started) {
      this.started = true;
      this.out.push({ type: 'start', id: readString(chunk, 'id') ?? generateId('cmpl-'), model: readString(chunk, 'model') ?? '', created: readNumber(chunk, 'created') ?? nowSeconds() });
    }
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isRecord(c) && (c.index ?? 0) === 0) : undefined;
    if (isRecord(choice)) {
      const text = readString(choice, 'text');
      if (text && !this.finished) {
        if (!this.open) this.out.push({ type: 'text-start' });
        this.open = true;
        this.out.push({ type: 'text-delta', text });
      }
      if (typeof choice.finish_reason === 'string' && !this.finished) this.finish(decodeCompletionsFinishReason(choice.finish_reason));
    }
    this.usage = decodeChatUsage(chunk.usage) ?? this.usage;
    return this.out;
  }

  end(): StreamPart[] {
    if (this.done) return [];
    this.out = [];
    if (this.finished) return this.complete();
    this.done = true;
    this.close();
    this.out.push({ type: 'error', error: streamErrorFromUpstream(undefined, 'The upstream stream ended before it finished.') });
    return this.out;
  }

  private close(): void {
    if (this.open) this.out.push({ type: 'text-end' });
    this.open = false;
  }

  private finish(reason: FinishReason): void {
    this.close();
    this.finished = true;
    this.out.push({ type: 'finish', finishReason: reason });
  }

  private complete(): StreamPart[] {
    this.done = true;
    this.close();
    if (this.usage) this.out.push({ type: 'usage', usage: this.usage });
    this.out.push({ type: 'end' });
    return this.out;
  }
}
