import type { StreamPart, TokenLogprob } from '../../ir/index.ts';
import { isRecord, readString } from '../shared/index.ts';
import { readCarried } from '../shared/index.ts';

export interface MessageState { kind: 'message'; textOpen: boolean; partText: string; sawText: boolean; sawRefusal: boolean; itemId?: string }
export interface CallState { kind: 'function_call'; index: number; args: string; ended: boolean }
export interface ReasoningState { kind: 'reasoning'; id?: string; started: boolean; source?: 'summary' | 'text'; text: string; partText: string; separate: boolean }
export type ItemState = MessageState | CallState | ReasoningState | { kind: 'other' };

/**
 * Opens and closes IR blocks for the stream decoder, keeping at most one text or reasoning block
 * open, and filling in from `.done` events when an upstream sent no deltas.
 */
export class StreamBlocks {
  private open: MessageState | ReasoningState | undefined;

  isOpen(state: ItemState): boolean {
    return this.open === state;
  }

  openText(state: MessageState | undefined, out: StreamPart[]): void {
    if (!state || state.textOpen) return;
    this.closeOpen(out);
    state.textOpen = true;
    state.partText = '';
    this.open = state;
    out.push(state.itemId ? { type: 'text-start', itemId: state.itemId } : { type: 'text-start' });
  }

  textDelta(state: MessageState | undefined, delta: string, out: StreamPart[], logprobs?: TokenLogprob[]): void {
    if (!state || delta.length === 0) return;
    this.openText(state, out);
    state.partText += delta;
    state.sawText = true;
    out.push(logprobs ? { type: 'text-delta', text: delta, logprobs } : { type: 'text-delta', text: delta });
  }

  /** Closes the text part; an upstream that sent no deltas gets its full text emitted here. */
  textDone(state: MessageState | undefined, text: string, out: StreamPart[]): void {
    if (!state) return;
    if (!state.textOpen) {
      if (state.sawText || text.length === 0) return;
      this.openText(state, out);
    }
    if (state.partText.length === 0 && text.length > 0) this.textDelta(state, text, out);
    this.closeOpen(out);
  }

  refusal(state: MessageState | undefined, text: string, done: boolean, out: StreamPart[]): void {
    if (!state || text.length === 0 || (done && state.sawRefusal)) return;
    this.closeOpen(out);
    state.sawRefusal = true;
    out.push({ type: 'refusal-delta', text });
  }

  argsDelta(state: CallState | undefined, delta: string, out: StreamPart[]): void {
    if (!state || state.ended || delta.length === 0) return;
    state.args += delta;
    out.push({ type: 'tool-call-delta', index: state.index, argumentsDelta: delta });
  }

  endCall(state: CallState | undefined, full: string, out: StreamPart[]): void {
    if (!state || state.ended) return;
    if (state.args.length === 0) this.argsDelta(state, full, out);
    state.ended = true;
    out.push({ type: 'tool-call-end', index: state.index });
  }

  /** A new summary (or reasoning_text) part: the next text is separated by a blank line. */
  reasoningPart(state: ReasoningState | undefined): void {
    if (!state) return;
    if (state.text.length > 0) state.separate = true;
    state.partText = '';
  }

  /** Summary and raw reasoning text are alternatives: the first kind an item sends wins. */
  reasoningDelta(state: ReasoningState | undefined, source: 'summary' | 'text', text: string, done: boolean, out: StreamPart[]): void {
    if (!state || text.length === 0) return;
    state.source ??= source;
    if (state.source !== source || (done && state.partText.length > 0)) return;
    this.startReasoning(state, out);
    const delta = state.separate ? `\n\n${text}` : text;
    state.separate = false;
    state.text += delta;
    state.partText += text;
    out.push({ type: 'reasoning-delta', text: delta });
  }

  /** The final reasoning item: summary fallback, then what the gateway carried in encrypted_content or OpenAI's own. */
  reasoningDone(state: ReasoningState, item: Record<string, unknown>, out: StreamPart[]): void {
    if (state.text.length === 0 && Array.isArray(item.summary)) {
      for (const part of item.summary) {
        this.reasoningPart(state);
        this.reasoningDelta(state, 'summary', isRecord(part) ? (readString(part, 'text') ?? '') : '', false, out);
      }
    }
    const encrypted = readString(item, 'encrypted_content');
    const carried = encrypted === undefined ? undefined : readCarried(encrypted);
    if (carried?.redacted !== undefined && !state.started) {
      out.push({ type: 'redacted-reasoning', data: carried.redacted });
      return;
    }
    // An empty item still matters when it has an id: a stored OpenAI response resolves it by id,
    // and a later call sent without it is rejected. Without an id it carries nothing.
    if (!state.started && encrypted === undefined && state.id === undefined) return;
    this.startReasoning(state, out);
    if (carried?.signature !== undefined) out.push({ type: 'reasoning-signature', signature: carried.signature });
    const end: Extract<StreamPart, { type: 'reasoning-end' }> = { type: 'reasoning-end' };
    const endEncrypted = carried === undefined ? encrypted : carried.encrypted;
    if (endEncrypted !== undefined) end.encrypted = endEncrypted;
    if (carried?.metadata !== undefined) end.providerMetadata = carried.metadata;
    out.push(end);
    state.started = false;
    this.open = undefined;
  }

  /** Closes the open text or reasoning block, if any. */
  closeOpen(out: StreamPart[]): void {
    const open = this.open;
    this.open = undefined;
    if (open?.kind === 'message' && open.textOpen) {
      open.textOpen = false;
      out.push({ type: 'text-end' });
    } else if (open?.kind === 'reasoning' && open.started) {
      open.started = false;
      out.push({ type: 'reasoning-end' });
    }
  }

  private startReasoning(state: ReasoningState, out: StreamPart[]): void {
    if (state.started) return;
    this.closeOpen(out);
    state.started = true;
    this.open = state;
    out.push({ type: 'reasoning-start', ...(state.id ? { itemId: state.id } : {}) });
  }
}
