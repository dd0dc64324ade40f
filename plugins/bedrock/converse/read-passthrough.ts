// Usage and finish from a same-format (Converse → Converse) answer, without converting it.
import type { PassthroughInfo, UsageTap, WireRecord } from 'gateway/plugin-kit';
import { parseJson, recordOf, stringOf } from './json.ts';
import { decodeConverseUsage } from './map-usage.ts';

export function readConversePassthroughResponse(body: unknown): PassthroughInfo {
  const b = recordOf(body);
  const info: PassthroughInfo = {};
  const usage = decodeConverseUsage(b.usage);
  if (usage) info.usage = usage;
  const stop = stringOf(b.stopReason);
  if (stop) info.finishReason = stop;
  return info;
}

/** Only `metadata` (usage) and `messageStop` records are parsed; deltas never are. */
export function createConverseUsageTap(): UsageTap {
  const info: PassthroughInfo = {};
  return {
    push(record: WireRecord): void {
      if (record.event === 'metadata') {
        const usage = decodeConverseUsage(recordOf(parseJson(record.data)).usage);
        if (usage) info.usage = usage;
      } else if (record.event === 'messageStop') {
        const stop = stringOf(recordOf(parseJson(record.data)).stopReason);
        if (stop) info.finishReason = stop;
      }
    },
    info,
  };
}
