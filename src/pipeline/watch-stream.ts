import { GatewayError } from '../errors/index.ts';
import { getFormat, type FormatDefinition, type WireRecord } from '../formats/index.ts';
import { firstSignificant, looksLikeObject } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';

/** Watches an upstream stream record by record: shape sanity, and whether it really finished. */
export interface StreamWatch {
  /**
   * A provider_error when the record cannot be a record of this format (e.g. cut JSON).
   * `finishes` false: where the answer finished is not asked of this record (a later record
   * of the same chunk is the last one, which tells it).
   */
  check(record: WireRecord, finishes?: boolean): GatewayError | undefined;
  /** True when `record` is the last record the format sends (checked only by `check`). */
  completes(record: WireRecord): boolean;
  /** True once the format's terminal record (or an upstream error record) went by; told only by a watch that asks for it (`finishes`). */
  readonly finished: boolean;
  /** True once the last record the format sends went by (Chat: `[DONE]`); only the end of the body may follow. */
  readonly complete: boolean;
  /**
   * The record that ended the answer, when it went by: the last one the format said finished it
   * (Chat's error or finish chunk), else the one that completed the stream (a Messages `error`,
   * a Responses `response.failed`). Read once, at the end, to tell an answer the upstream ended
   * with its own error record.
   */
  readonly ending: WireRecord | undefined;
}

function invalid(providerId: string): GatewayError {
  return new GatewayError('provider_error', `The provider '${providerId}' sent a stream record that is not valid JSON.`, {
    details: { provider: providerId },
  });
}

class Watch implements StreamWatch {
  finished = false;
  complete = false;
  ending: WireRecord | undefined = undefined;
  private readonly terminal: FormatDefinition['terminal'];

  constructor(
    format: WireFormat,
    private readonly providerId: string,
    private readonly finishes: boolean,
  ) {
    this.terminal = getFormat(format).terminal;
  }

  check(record: WireRecord, finishes = true): GatewayError | undefined {
    const data = record.data;
    const first = firstSignificant(data);
    if (first === -1) return undefined;
    const object = looksLikeObject(data);
    if (!object && data.charCodeAt(first) === 123 /* { */) return invalid(this.providerId); // a cut object
    // A record that is no object is valid only if the format names it, so it is always asked in full.
    const end = this.complete ? undefined : this.terminal(record, (finishes && this.finishes) || !object);
    // A record the format names (Chat's `[DONE]`) may be bare text; any other must be one JSON object.
    if (!object && end === undefined) return invalid(this.providerId);
    if (end === 'complete') {
      this.finished = this.complete = true;
      this.ending ??= record;
    } else if (end === 'finished') {
      this.finished = true;
      this.ending = record;
    }
    return undefined;
  }

  completes(record: WireRecord): boolean {
    return !this.complete && this.terminal(record, false) === 'complete';
  }
}

/**
 * A cheap per-record check that never JSON-parses: a data payload must look like one JSON
 * object (`{…}`), unless the format's `terminal` names it (Chat's `[DONE]`). That catches cut
 * and garbage records, which would otherwise crash the client's SDK mid-stream. Where the
 * stream ends is the format's to say (FormatDefinition.terminal). `finishes` false: only the last
 * record is watched for (`complete`), not where the answer finished (a conversion's decoder tells that).
 */
export function watchStream(format: WireFormat, providerId: string, finishes = true): StreamWatch {
  return new Watch(format, providerId, finishes);
}

/** The error a client gets when the upstream closed its stream before the terminal record. */
export function truncatedStream(providerId: string): GatewayError {
  return new GatewayError('provider_error', `The provider '${providerId}' ended the stream before it finished.`, {
    details: { provider: providerId },
  });
}
