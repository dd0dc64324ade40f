import type { SseRecord } from '../../sse/index.ts';
import { isRecord, readString } from '../shared/index.ts';
import type { PassthroughInfo, UsageTap } from '../types.ts';
import { candidateOf } from './decode-response.ts';
import { decodeGeminiUsage } from './map-usage.ts';

/** Id, model, usage and finish reason of a same-format `GenerateContentResponse`. */
export function readGeminiPassthroughResponse(body: unknown): PassthroughInfo {
  const info: PassthroughInfo = {};
  if (!isRecord(body)) return info;
  readInto(info, body);
  return info;
}

function readInto(info: PassthroughInfo, body: Record<string, unknown>): void {
  const id = readString(body, 'responseId');
  const model = readString(body, 'modelVersion');
  if (id) info.id = id;
  if (model) info.model = model;
  const usage = decodeGeminiUsage(body.usageMetadata);
  if (usage) info.usage = usage;
  const reason = readString(candidateOf(body) ?? {}, 'finishReason');
  if (reason) info.finishReason = reason;
}

/** Usage from a passthrough stream: each record may carry `usageMetadata`; the last one counts. Records without it are not parsed. */
export function createGeminiUsageTap(): UsageTap {
  const info: PassthroughInfo = {};
  let first = true;
  return {
    push(record: SseRecord) {
      if (!first && !record.data.includes('"usageMetadata"')) return;
      first = false;
      let body: unknown;
      try {
        body = JSON.parse(record.data);
      } catch {
        return;
      }
      if (isRecord(body)) readInto(info, body);
    },
    info,
  };
}
