import type { Admission } from '../accounts/index.ts';
import type { RequestRecord, SettledCharge } from '../observability/index.ts';
import type { Settlement } from '../pipeline/index.ts';
import type { ExchangeDeps } from './types.ts';

/** An exchange's one settlement channel: `settle` charges (or, given null, releases) once; `settled` resolves after. */
export interface SettleOnce {
  settle(settlement: Settlement | null): Promise<void>;
  /** Resolves once the call is charged and its record knows it, with the charge (none: nothing charged, or it failed); never rejects. */
  settled: Promise<SettledCharge | void>;
}

/**
 * The one settlement channel of an admitted call: charged once, the record told what was charged
 * (a client gone: 499 client_closed), then `settled`. A second call gets the first one's promise, so
 * a failure after the settlement (a failed answer billed for what it used) waits for it.
 */
export function settleOnce(deps: Pick<ExchangeDeps, 'log'>, admission: Admission, record: RequestRecord | undefined): SettleOnce {
  let done!: (charge?: SettledCharge | void) => void;
  const settled = new Promise<SettledCharge | void>((resolve) => (done = resolve));
  if (record) record.settling = settled;
  let settling: Promise<void> | undefined;
  const settle = (settlement: Settlement | null): Promise<void> => {
    if (settling) return settling;
    if (record && settlement) {
      if (settlement.aborted) {
        record.errorCode ??= 'client_closed';
        record.status = 499;
      }
      // For the ledger line (generation stats): whether it streamed and how long it took, read from the record, no clock read.
      settlement.streamed = record.stream;
      settlement.arrivedAt = record.time;
    }
    return (settling = admission.settle(settlement).then(
      (charge) => {
        record?.applySettlement(settlement, charge);
        done(charge);
      },
      (error: unknown) => {
        deps.log.error('settle failed', { error: String(error) });
        done();
      },
    ));
  };
  return { settle, settled };
}
