// IR stream parts → ConverseStream records (event name = `:event-type`), for a Converse client
// of another format's upstream: messageStart, blocks numbered from 0, messageStop, metadata.
import type { ChatRequest, StreamEncoder, StreamPart, Usage, WireRecord } from 'gateway/plugin-kit';
import { encodeConverseStopReason } from './map-stop-reason.ts';
import { encodeConverseUsage } from './map-usage.ts';
import { exceptionRecord } from './map-error.ts';

type Open = { kind: 'text' | 'reasoning' } | { kind: 'tool'; index: number };

class ConverseStreamEncoder implements StreamEncoder {
  private out: WireRecord[] = [];
  private started = false;
  private stopped = false;
  private done = false;
  private next = 0;
  private open: Open | undefined;
  private usage: Partial<Usage> = {};

  encode(part: StreamPart): WireRecord[] {
    if (this.done) return [];
    this.out = [];
    if (part.type === 'error') {
      this.done = true;
      this.out.push(exceptionRecord(part.error, { message: part.error.message, code: part.error.code }, part.error.upstreamStatus));
      return this.out;
    }
    if (!this.started) {
      this.started = true;
      this.record('messageStart', { role: 'assistant' });
      if (part.type === 'start' && part.usage) this.usage = { ...part.usage };
    }
    this.body(part);
    return this.out;
  }

  private body(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta':
      case 'refusal-delta':
        if (!part.text) return;
        this.ensure({ kind: 'text' });
        this.delta({ text: part.text });
        return;
      case 'text-end':
        if (this.open?.kind === 'text') this.close();
        return;
      case 'reasoning-start':
        this.ensure({ kind: 'reasoning' });
        return;
      case 'reasoning-delta':
        if (!part.text) return;
        this.ensure({ kind: 'reasoning' });
        this.delta({ reasoningContent: { text: part.text } });
        return;
      case 'reasoning-signature':
        this.ensure({ kind: 'reasoning' });
        this.delta({ reasoningContent: { signature: part.signature } });
        return;
      case 'reasoning-end':
        if (this.open?.kind === 'reasoning') this.close();
        return;
      case 'redacted-reasoning':
        this.close();
        this.open = { kind: 'reasoning' };
        this.delta({ reasoningContent: { redactedContent: part.data } });
        this.close();
        return;
      case 'tool-call-start':
        this.close();
        this.open = { kind: 'tool', index: part.index };
        this.record('contentBlockStart', { contentBlockIndex: this.next, start: { toolUse: { toolUseId: part.id, name: part.name } } });
        return;
      case 'tool-call-delta':
        if (this.open?.kind === 'tool' && this.open.index === part.index && part.argumentsDelta) this.delta({ toolUse: { input: part.argumentsDelta } });
        return;
      case 'tool-call-end':
        if (this.open?.kind === 'tool' && this.open.index === part.index) this.close();
        return;
      case 'finish':
        this.close();
        if (!this.stopped) {
          this.stopped = true;
          this.record('messageStop', { stopReason: encodeConverseStopReason(part.finishReason, part.stopSequence) });
        }
        return;
      case 'usage':
        this.usage = part.usage;
        return;
      case 'end':
        this.done = true;
        this.close();
        if (!this.stopped) this.record('messageStop', { stopReason: 'end_turn' });
        this.record('metadata', { usage: encodeConverseUsage(this.usage), metrics: { latencyMs: 0 } });
        return;
      default:
        return;
    }
  }

  private ensure(open: Open): void {
    if (this.open?.kind === open.kind) return;
    this.close();
    this.open = open;
  }

  private delta(delta: Record<string, unknown>): void {
    this.record('contentBlockDelta', { contentBlockIndex: this.next, delta });
  }

  private close(): void {
    if (!this.open) return;
    this.open = undefined;
    this.record('contentBlockStop', { contentBlockIndex: this.next++ });
  }

  private record(event: string, data: unknown): void {
    this.out.push({ event, data: JSON.stringify(data) });
  }
}

export function createConverseStreamEncoder(_request: ChatRequest): StreamEncoder {
  return new ConverseStreamEncoder();
}
