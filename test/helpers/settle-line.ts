import type { SharedCredits, SharedHold, SharedEntry } from '../../src/credits/index.ts';
import type { AccountRecord, ApiKeyRecord } from '../../src/store/index.ts';

/**
 * Settles one ledger line through the credits port as the guards do (`alone` = `now`,
 * `untilBilled` = `untilRecorded`), copies what it charged into `charge`, and returns what the
 * answer's end would wait for. The shared engine reads neither account nor key record here.
 */
export function settleLine(
  credits: SharedCredits,
  hold: SharedHold | undefined,
  entry: SharedEntry,
  charge: { cost: number; charged: number },
  options: { now: boolean; untilRecorded?: boolean },
): Promise<void> | undefined {
  const account = { id: entry.account_id } as AccountRecord;
  const key = { id: entry.key_id } as ApiKeyRecord;
  const settled = credits.settle({ hold, entry, account, key, alone: options.now, untilBilled: options.untilRecorded });
  charge.charged = settled.charge.charged;
  return settled.recorded;
}
