import { creditsToUsd } from '../billing/index.ts';
import { framingOf, getFormat, type StreamFraming, type UsageCostFace, type WireRecord } from '../formats/index.ts';
import type { SettledCharge } from '../observability/index.ts';
import type { ChatOutcome, RelayedStream, StreamTarget } from '../pipeline/index.ts';
import { iterateTarget } from '../pipeline/index.ts';
import { ForwardingTarget } from './forwarding-target.ts';
import type { ExchangeAnswer } from './types.ts';

/** What the settlement charged, once it did: the charge, or nothing (a batch line charged already, a line not written). */
export type ChargeOf = Promise<SettledCharge | void>;

type CostReport = NonNullable<ChatOutcome['reportCost']>;

/** The USD the request was charged, OpenRouter's `usage.cost` (as `/v1/key` says spend); undefined without a charge. */
function usdOf(charge: SettledCharge | void): number | undefined {
  return charge ? creditsToUsd(charge.charged) : undefined;
}

/**
 * A whole answer with what the gateway charged in its usage (OpenRouter's usage accounting,
 * asked by the client): sent once the charge is known, after its records are durable as any answer.
 */
export function answerWithCost(answer: ExchangeAnswer | Promise<ExchangeAnswer>, report: CostReport, charged: ChargeOf): Promise<ExchangeAnswer> {
  const face = getFormat(report.format).usageCost;
  if (!face) return Promise.resolve(answer);
  return Promise.resolve(answer).then((whole) =>
    charged.then((charge) => {
      const usd = usdOf(charge);
      const json = usd === undefined || whole.json === undefined ? undefined : face.answer(whole.json, usd);
      return json === undefined ? whole : { ...whole, json };
    }),
  );
}

/** A stream whose last usage record carries what the gateway charged (see CostTarget). */
export function streamWithCost(stream: RelayedStream, report: CostReport, charged: ChargeOf): RelayedStream {
  const format = getFormat(report.format);
  const face = format.usageCost;
  return face ? new CostedStream(stream, face, framingOf(format, report.framing), charged) : stream;
}

class CostedStream implements RelayedStream {
  constructor(
    private readonly stream: RelayedStream,
    private readonly face: UsageCostFace,
    private readonly framing: StreamFraming,
    private readonly charged: ChargeOf,
  ) {}

  pushTo(target: StreamTarget): void {
    this.stream.pushTo(new CostTarget(target, this.face, this.framing, this.charged));
  }

  [Symbol.asyncIterator](): AsyncIterator<string | Uint8Array> {
    return iterateTarget((target) => this.pushTo(target));
  }
}

function hasMarker(chunk: string | Uint8Array, marker: string): boolean {
  return typeof chunk === 'string' ? chunk.includes(marker) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).includes(marker);
}

/**
 * Holds a stream from the last piece that may hold its usage (the format's marker) to its end,
 * then sends that piece with the usage record costed once the settlement charged the request
 * (the usage is final only at the upstream's last record). What comes before goes straight
 * through; a piece held is sent as it came when a later one has the marker again (an upstream
 * that reports usage in every chunk is one piece late, not held whole).
 */
class CostTarget extends ForwardingTarget {
  private held: Array<string | Uint8Array> | undefined;

  constructor(
    inner: StreamTarget,
    private readonly face: UsageCostFace,
    private readonly framing: StreamFraming,
    private readonly charged: ChargeOf,
  ) {
    super(inner);
  }

  write(chunk: string | Uint8Array): boolean {
    if (hasMarker(chunk, this.face.marker)) {
      const sent = this.release();
      this.held = [chunk];
      return sent;
    }
    if (this.held) {
      this.held.push(chunk);
      return true;
    }
    return this.inner.write(chunk);
  }

  end(chunk?: string | Uint8Array, apart?: string): void {
    if (chunk !== undefined && chunk.length > 0 && hasMarker(chunk, this.face.marker)) {
      this.release();
      this.held = [chunk];
    } else if (chunk !== undefined && chunk.length > 0 && this.held) this.held.push(chunk);
    else if (!this.held) return this.endInner(chunk, apart);
    const held = this.held;
    this.held = undefined;
    void this.charged.then((charge) => {
      const usd = usdOf(charge);
      const bytes = Buffer.concat(held.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece)));
      this.endInner((usd === undefined ? undefined : this.costed(bytes, usd)) ?? bytes, apart);
    });
  }

  override abort(): void {
    this.held = undefined;
    super.abort();
  }

  /** Sends what was held as it came; false when the target asks for a pause. */
  private release(): boolean {
    const held = this.held;
    this.held = undefined;
    let sent = true;
    if (held) for (const piece of held) sent = this.inner.write(piece);
    return sent;
  }

  /** The held records framed again with the last usage record costed; undefined when none holds usage. */
  private costed(bytes: Buffer, usd: number): string | Buffer | undefined {
    const reader = this.framing.createReader();
    reader.push(bytes);
    const records: WireRecord[] = [...reader.records, ...reader.end()];
    for (let i = records.length - 1; i >= 0; i -= 1) {
      const costed = this.face.record(records[i], usd);
      if (costed === undefined) continue;
      records[i] = costed;
      return this.framing.createWriter().write(records);
    }
    return undefined;
  }
}
