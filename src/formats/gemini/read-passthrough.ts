import type { SseRecord } from '../../sse/index.ts';
import { isRecord, readString } from '../shared/index.ts';
import type { PassthroughInfo, UsageTap } from '../types.ts';
import { candidateOf } from './decode-response.ts';
import { countGroundedSearches, decodeGeminiUsage, tallyGrounding, type GroundingTally } from './map-usage.ts';

/** Id, model, usage (its Google Search grounding counted) and finish reason of a same-format `GenerateContentResponse`. */
export function readGeminiPassthroughResponse(body: unknown): PassthroughInfo {
  const info: PassthroughInfo = {};
  if (!isRecord(body)) return info;
  readInto(info, body);
  countGroundedSearches(info.usage, tallyGrounding(body, undefined), info.model);
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

/**
 * Usage from a passthrough stream: each record may carry `usageMetadata` (the last one counts)
 * and `groundingMetadata` (every one is tallied into the usage's web searches). Records with
 * neither are not parsed.
 */
export function createGeminiUsageTap(): UsageTap {
  const info: PassthroughInfo = {};
  let first = true;
  let searches: GroundingTally | undefined;
  return {
    push(record: SseRecord) {
      if (!first && !record.data.includes('"usageMetadata"') && !record.data.includes('"groundingMetadata"')) return;
      first = false;
      let body: unknown;
      try {
        body = JSON.parse(record.data);
      } catch {
        return;
      }
      if (!isRecord(body)) return;
      readInto(info, body);
      searches = tallyGrounding(body, searches);
      countGroundedSearches(info.usage, searches, info.model);
    },
    info,
  };
}
