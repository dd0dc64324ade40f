import type { SseRecord } from '../../sse/index.ts';
import type { PassthroughInfo, UsageTap } from '../types.ts';
import { isRecord, readString, tryParseJson } from '../shared/index.ts';
import { decodeChatUsage } from './map-usage.ts';
import { quotedFinder } from '../../util/find-quoted.ts';

/** Reads id, model and usage from a same-format Chat Completions response without converting it. */
export function readChatPassthroughResponse(body: unknown): PassthroughInfo {
  if (!isRecord(body)) return {};
  const info = withIdentity({}, body, decodeChatUsage(body.usage));
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : undefined;
  const finishReason = choice ? readString(choice, 'finish_reason') : undefined;
  if (finishReason !== undefined) info.finishReason = finishReason;
  return info;
}

/** `"usage":{` with any spacing (Python upstreams write `"usage": {`); `"usage":null` does not match. */
const USAGE_OBJECT = /"usage"\s*:\s*\{/;
const findUsage = quotedFinder('"usage"');

/**
 * Reads id/model/usage from a passthrough Chat stream. Only the first chunk (identity) and
 * chunks whose text carries a usage object are parsed; the rest is never JSON-decoded.
 */
export function createChatUsageTap(): UsageTap {
  let info: PassthroughInfo = {};
  let identified = false;
  return {
    push(record: SseRecord): void {
      const data = record.data;
      const carriesUsage = findUsage(data) !== -1 && USAGE_OBJECT.test(data);
      if (identified && !carriesUsage) return;
      const chunk = tryParseJson(data);
      if (!isRecord(chunk)) return;
      identified = true;
      info = withIdentity(info, chunk, carriesUsage ? decodeChatUsage(chunk.usage) : undefined);
    },
    get info(): PassthroughInfo {
      return info;
    },
  };
}

function withIdentity(info: PassthroughInfo, body: Record<string, unknown>, usage: PassthroughInfo['usage']): PassthroughInfo {
  const next: PassthroughInfo = { ...info };
  next.id ??= readString(body, 'id');
  next.model ??= readString(body, 'model');
  if (usage) next.usage = usage;
  if (next.id === undefined) delete next.id;
  if (next.model === undefined) delete next.model;
  return next;
}
