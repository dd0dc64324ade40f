import { GatewayError } from '../errors/index.ts';
import type { WireFormat } from '../ir/types.ts';
import type { SseRecord } from '../sse/index.ts';
import { quotedFinder } from '../util/find-quoted.ts';

const FINISH_REASON = /"finish_reason"\s*:\s*"/;
const RESPONSES_TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);
const findFinishReason = quotedFinder('"finish_reason"');

/** Watches an upstream stream record by record: shape sanity, and whether it really finished. */
export interface StreamWatch {
  /** A provider_error when the record cannot be a record of this format (e.g. cut JSON). */
  check(record: SseRecord): GatewayError | undefined;
  /** True once the format's terminal record (or an upstream error record) went by. */
  readonly finished: boolean;
  /** True once the last record the format sends went by (Chat: `[DONE]`); only the end of the body may follow. */
  readonly complete: boolean;
}

function invalid(providerId: string): GatewayError {
  return new GatewayError('provider_error', `The provider '${providerId}' sent a stream record that is not valid JSON.`, {
    details: { provider: providerId },
  });
}

class Watch implements StreamWatch {
  finished = false;
  complete = false;

  constructor(
    private readonly format: WireFormat,
    private readonly providerId: string,
    /** Look for Chat's finish_reason (only a passthrough needs it, to tell a cut stream). */
    private readonly finishReasons: boolean,
  ) {}

  check(record: SseRecord): GatewayError | undefined {
    const data = record.data;
    const start = firstSignificant(data);
    if (start === -1) return undefined;
    const end = lastSignificant(data);
    const format = this.format;
    if (format === 'chat' && data.startsWith('[DONE]', start) && end === start + 5) {
      this.finished = this.complete = true;
      return undefined;
    }
    if (data.charCodeAt(start) !== 123 /* { */ || data.charCodeAt(end) !== 125 /* } */) return invalid(this.providerId);
    if (format === 'chat') {
      if (!this.finished && (data.startsWith('{"error"', start) || (this.finishReasons && finishReasonSet(data)))) this.finished = true;
    } else if (format === 'messages') {
      if (record.event === 'message_stop' || record.event === 'error') this.finished = this.complete = true;
    } else if (record.event !== undefined && RESPONSES_TERMINAL.has(record.event)) this.finished = this.complete = true;
    return undefined;
  }
}

/**
 * A cheap per-record check that never JSON-parses: a data payload must look like one JSON
 * object (`{…}`), or be Chat's `[DONE]`. That catches cut and garbage records, which would
 * otherwise crash the client's SDK mid-stream, at the cost of two character reads a record.
 * `finishReasons: false` skips the scan for Chat's finish_reason (a converted stream does
 * not use `finished`).
 */
export function watchStream(format: WireFormat, providerId: string, options: { finishReasons?: boolean } = {}): StreamWatch {
  return new Watch(format, providerId, options.finishReasons ?? true);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function firstSignificant(data: string): number {
  for (let i = 0; i < data.length; i += 1) if (!isSpace(data.charCodeAt(i))) return i;
  return -1;
}

function lastSignificant(data: string): number {
  for (let i = data.length - 1; i >= 0; i -= 1) if (!isSpace(data.charCodeAt(i))) return i;
  return -1;
}

/** `"finish_reason"` followed by a string (not null), without a regex over every chunk. */
function finishReasonSet(data: string): boolean {
  const at = findFinishReason(data);
  if (at === -1) return false;
  let i = at + 15;
  while (i < data.length && (isSpace(data.charCodeAt(i)) || data.charCodeAt(i) === 58 /* : */)) i += 1;
  return data.charCodeAt(i) === 34 /* " */ || (findFinishReason(data, i) !== -1 && FINISH_REASON.test(data.slice(i)));
}

/** The error a client gets when the upstream closed its stream before the terminal record. */
export function truncatedStream(providerId: string): GatewayError {
  return new GatewayError('provider_error', `The provider '${providerId}' ended the stream before it finished.`, {
    details: { provider: providerId },
  });
}
