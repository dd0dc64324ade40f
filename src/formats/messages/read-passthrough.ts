import type { SseRecord } from '../../sse/index.ts';
import type { PassthroughInfo, UsageTap } from '../types.ts';
import { isRecord, readString, tryParseJson } from '../shared/index.ts';
import { decodeMessagesUsage, mergeMessagesUsage } from './map-usage.ts';
import { quotedFinder } from '../../util/index.ts';

const findMessageStart = quotedFinder('"message_start"');
const findMessageDelta = quotedFinder('"message_delta"');

/** Reads id, model and usage from a same-format Messages response without converting it. */
export function readMessagesPassthroughResponse(body: unknown): PassthroughInfo {
  if (!isRecord(body)) return {};
  const info: PassthroughInfo = {};
  const id = readString(body, 'id');
  const model = readString(body, 'model');
  const usage = decodeMessagesUsage(body.usage);
  if (id !== undefined) info.id = id;
  if (model !== undefined) info.model = model;
  if (usage) info.usage = usage;
  const stopReason = readString(body, 'stop_reason');
  if (stopReason !== undefined) info.finishReason = stopReason;
  return info;
}

/**
 * Reads id/model/usage/stop reason from a passthrough Messages stream. Only `message_start`
 * (identity, input usage) and `message_delta` (cumulative usage, stop reason) are parsed; text
 * deltas never are.
 */
export function createMessagesUsageTap(): UsageTap {
  return new MessagesUsageTap();
}

/** A class, not an object literal with a getter: V8 makes those on its slow path, once a stream here. */
class MessagesUsageTap implements UsageTap {
  private raw: Record<string, unknown> = {};
  private tapped: PassthroughInfo = {};

  push(record: SseRecord): void {
    const name = record.event ?? eventName(record.data);
    if (name !== 'message_start' && name !== 'message_delta') return;
    const event = tryParseJson(record.data);
    if (!isRecord(event)) return;
    const source = name === 'message_start' && isRecord(event.message) ? event.message : event;
    if (name === 'message_start') this.tapped = { ...this.tapped, ...readMessagesPassthroughResponse(source) };
    else {
      const stopReason = isRecord(event.delta) ? readString(event.delta, 'stop_reason') : undefined;
      if (stopReason !== undefined) this.tapped = { ...this.tapped, finishReason: stopReason };
    }
    this.raw = mergeMessagesUsage(this.raw, source.usage);
    const usage = decodeMessagesUsage(this.raw);
    if (usage && isRecord(source.usage)) this.tapped = { ...this.tapped, usage };
  }

  get info(): PassthroughInfo {
    return this.tapped;
  }
}

/** Streams without `event:` lines: find the type cheaply from the data's head. */
function eventName(data: string): string | undefined {
  if (findMessageStart(data) !== -1) return 'message_start';
  if (findMessageDelta(data) !== -1) return 'message_delta';
  return undefined;
}
