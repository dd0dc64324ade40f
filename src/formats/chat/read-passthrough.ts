import type { SseRecord } from '../../sse/index.ts';
import type { PassthroughInfo, UsageTap } from '../types.ts';
import { isRecord, readString, tryParseJson } from '../shared/index.ts';
import { decodeChatUsage } from './map-usage.ts';
import { quotedFinder } from '../../util/index.ts';
import { CHAT_MARKER } from './pass-through.ts';

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
const findUsage = quotedFinder(CHAT_MARKER);

/**
 * Reads id/model/usage from a passthrough Chat stream. Only chunks whose text carries a usage
 * object are parsed while the stream runs; every Chat chunk repeats the response's id and model,
 * so the usage chunk names them too, and the first chunk is parsed only if it did not (read when
 * `info` is asked for). The rest is never JSON-decoded.
 */
export function createChatUsageTap(): UsageTap {
  return new ChatUsageTap();
}

class ChatUsageTap implements UsageTap {
  private tapped: PassthroughInfo = {};
  /** The first chunk's text, until its id and model are known or it was read. */
  private first: string | undefined;
  private seen = false;
  /**
   * The last four chunks' texts (a ring), until the finish reason was read from them: the choice's
   * last chunk says it, before the usage chunk (or with it, as some upstreams write it), and Azure
   * may send content-filter chunks after it.
   */
  private readonly recent: Array<string | undefined> = [undefined, undefined, undefined, undefined];
  private chunks = 0;
  private finishRead = false;

  push(record: SseRecord, marked?: boolean): void {
    const data = record.data;
    if (data.charCodeAt(0) === 123 /* { */) {
      if (!this.seen) {
        this.seen = true;
        this.first = data;
      }
      this.recent[this.chunks & 3] = data;
      this.chunks += 1;
    }
    // Unmarked: it holds no `"usage"` (CHAT_MARKER).
    if (marked === false || findUsage(data) === -1 || !USAGE_OBJECT.test(data)) return;
    const chunk = tryParseJson(data);
    if (isRecord(chunk)) this.tapped = withIdentity(this.tapped, chunk, decodeChatUsage(chunk.usage));
  }

  get info(): PassthroughInfo {
    const first = this.first;
    if (first !== undefined) {
      this.first = undefined;
      const tapped = this.tapped;
      if (tapped.id === undefined || tapped.model === undefined) {
        const chunk = tryParseJson(first);
        if (isRecord(chunk)) this.tapped = withIdentity(tapped, chunk, undefined);
      }
    }
    if (!this.finishRead) {
      this.finishRead = true;
      let reason: string | undefined;
      // Newest first: the last chunk that names one.
      for (let back = 1; back <= 4 && reason === undefined; back += 1) reason = finishReasonIn(this.recent[(this.chunks - back) & 3]);
      this.recent.fill(undefined);
      if (reason !== undefined && this.tapped.finishReason === undefined) this.tapped.finishReason = reason;
    }
    return this.tapped;
  }
}

const FINISH_KEY = '"finish_reason"';
/** At a `"finish_reason"`: its string value with any spacing; `"finish_reason":null` does not match. */
const FINISH_REASON = /"finish_reason"\s*:\s*"([^"\\]{1,64})"/y;

/**
 * The first finish reason a chunk's text names, if it names one: found with indexOf (the usage
 * chunk, `choices: []`, has none, and a regex scan of it cost more than the rest of the read).
 */
function finishReasonIn(data: string | undefined): string | undefined {
  if (data === undefined) return undefined;
  for (let at = data.indexOf(FINISH_KEY); at !== -1; at = data.indexOf(FINISH_KEY, at + 1)) {
    FINISH_REASON.lastIndex = at;
    const match = FINISH_REASON.exec(data);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * `info` with the body's id and model where it has none yet, and `usage` when given. Built
 * key by key: a spread plus `delete` of absent keys leaves a dictionary-mode object (slow to
 * make and to read) on every stream.
 */
function withIdentity(info: PassthroughInfo, body: Record<string, unknown>, usage: PassthroughInfo['usage']): PassthroughInfo {
  const next: PassthroughInfo = {};
  const id = info.id ?? readString(body, 'id');
  if (id !== undefined) next.id = id;
  const model = info.model ?? readString(body, 'model');
  if (model !== undefined) next.model = model;
  const kept = usage ?? info.usage;
  if (kept) next.usage = kept;
  if (info.finishReason !== undefined) next.finishReason = info.finishReason;
  return next;
}
