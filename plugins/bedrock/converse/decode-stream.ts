// A ConverseStream (event-stream records named by `:event-type`) → IR stream parts.
// Only tool blocks get a `contentBlockStart`; text and reasoning blocks open with their first delta.
import type { StreamDecoder, StreamPart, WireRecord } from 'gateway/plugin-kit';
import { isRecord, numberOf, parseJson, recordOf, responseId, stringOf } from './json.ts';
import { decodeConverseStopReason, malformedStopMessage } from './map-stop-reason.ts';
import { decodeConverseUsage } from './map-usage.ts';
import { streamErrorOf } from './map-error.ts';

type Block = { kind: 'text' } | { kind: 'reasoning' } | { kind: 'tool'; index: number } | { kind: 'done' };

class ConverseStreamDecoder implements StreamDecoder {
  private out: StreamPart[] = [];
  private readonly blocks = new Map<number, Block>();
  private nextTool = 0;
  private started = false;
  private finished = false;
  private done = false;

  push(record: WireRecord): StreamPart[] {
    if (this.done) return [];
    this.out = [];
    const event = record.event ?? '';
    if (event.startsWith('exception:')) {
      this.done = true;
      this.closeAll();
      this.out.push({ type: 'error', error: streamErrorOf(record) });
      return this.out;
    }
    const data = recordOf(parseJson(record.data));
    switch (event) {
      case 'messageStart':
        this.start();
        break;
      case 'contentBlockStart':
        this.blockStart(data);
        break;
      case 'contentBlockDelta':
        this.blockDelta(data);
        break;
      case 'contentBlockStop':
        this.blockStop(numberOf(data.contentBlockIndex) ?? 0);
        break;
      case 'messageStop':
        this.start();
        this.closeAll();
        this.finished = true;
        const malformed = malformedStopMessage(data.stopReason);
        // No answer in it (malformedStopMessage): the upstream's error; the usage and the end follow with metadata.
        if (malformed !== undefined) this.out.push({ type: 'error', error: { code: 'provider_error', status: 502, message: malformed, upstreamCode: String(data.stopReason) } });
        else this.out.push({ type: 'finish', finishReason: decodeConverseStopReason(data.stopReason) });
        break;
      case 'metadata': {
        const usage = decodeConverseUsage(data.usage);
        if (usage) this.out.push({ type: 'usage', usage });
        if (this.finished) {
          this.done = true;
          this.out.push({ type: 'end' });
        }
        break;
      }
      default:
        break;
    }
    return this.out;
  }

  end(): StreamPart[] {
    if (this.done) return [];
    this.done = true;
    this.out = [];
    if (this.finished) return [{ type: 'end' }];
    this.closeAll();
    this.out.push({ type: 'error', error: { code: 'provider_error', status: 502, message: 'The upstream stream ended before it finished.' } });
    return this.out;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.out.push({ type: 'start', id: responseId(), model: '', created: Math.floor(Date.now() / 1000) });
  }

  /** Opens a text or reasoning block for this index, closing another that is open (one at a time in the IR). */
  private open(index: number, kind: 'text' | 'reasoning'): void {
    if (this.blocks.get(index)?.kind === kind) return;
    this.closeAll();
    this.blocks.set(index, { kind });
    this.out.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start' });
  }

  private blockStart(data: Record<string, unknown>): void {
    this.start();
    const index = numberOf(data.contentBlockIndex) ?? 0;
    const toolUse = recordOf(recordOf(data.start).toolUse);
    if (!isRecord(recordOf(data.start).toolUse)) return;
    this.closeAll();
    const tool = { kind: 'tool' as const, index: this.nextTool++ };
    this.blocks.set(index, tool);
    this.out.push({ type: 'tool-call-start', index: tool.index, id: stringOf(toolUse.toolUseId) ?? '', name: stringOf(toolUse.name) ?? '' });
  }

  private blockDelta(data: Record<string, unknown>): void {
    this.start();
    const index = numberOf(data.contentBlockIndex) ?? 0;
    const delta = recordOf(data.delta);
    if (typeof delta.text === 'string') {
      this.open(index, 'text');
      if (delta.text) this.out.push({ type: 'text-delta', text: delta.text });
    } else if (isRecord(delta.toolUse)) {
      const block = this.blocks.get(index);
      const input = stringOf(delta.toolUse.input);
      if (block?.kind === 'tool' && input) this.out.push({ type: 'tool-call-delta', index: block.index, argumentsDelta: input });
    } else if (isRecord(delta.reasoningContent)) {
      const reasoning = delta.reasoningContent;
      if (typeof reasoning.redactedContent === 'string') {
        this.closeAll();
        this.blocks.set(index, { kind: 'done' });
        this.out.push({ type: 'redacted-reasoning', data: reasoning.redactedContent });
        return;
      }
      this.open(index, 'reasoning');
      if (typeof reasoning.text === 'string' && reasoning.text) this.out.push({ type: 'reasoning-delta', text: reasoning.text });
      if (typeof reasoning.signature === 'string') this.out.push({ type: 'reasoning-signature', signature: reasoning.signature });
    }
  }

  private blockStop(index: number): void {
    const block = this.blocks.get(index);
    if (!block) return;
    this.blocks.delete(index);
    this.close(block);
  }

  private close(block: Block): void {
    if (block.kind === 'text') this.out.push({ type: 'text-end' });
    else if (block.kind === 'reasoning') this.out.push({ type: 'reasoning-end' });
    else if (block.kind === 'tool') this.out.push({ type: 'tool-call-end', index: block.index });
  }

  private closeAll(): void {
    for (const block of this.blocks.values()) this.close(block);
    this.blocks.clear();
  }
}

export function createConverseStreamDecoder(): StreamDecoder {
  return new ConverseStreamDecoder();
}
