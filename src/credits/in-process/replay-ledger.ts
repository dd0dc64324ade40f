import { boundedDelta, roundCredits } from '../../billing/index.ts';
import type { BilledAccount } from './credit-book.ts';
import type { Store } from '../../store/index.ts';
import { UsageLedger, type LedgerEntry } from '../../store/index.ts';
import { UsageIndex } from '../../usage/index.ts';

/** What the startup replay found and fixed. */
export interface ReplayReport {
  entries: number;
  /** Ledger lines whose charge the store's snapshot did not hold yet (lost by a crash), now applied. */
  applied: number;
  appliedCredits: number;
  /**
   * Lines that cannot be replayed (torn by a crash, garbage): copied to usage.rejected.jsonl
   * (a torn last line is then cut from the ledger). `seqs` and `credits` are what their text
   * still shows; their charges are not applied.
   */
  unreplayable: { count: number; lines: number[]; seqs: number[]; credits: number; keptIn?: string };
  /** Entries of accounts the store does not have: counted in usage, charged to no balance. */
  unknownAccounts: { count: number; credits: number };
  /** Sequence numbers that no line carries, neither whole nor rejected: [first, last] of each run (up to the highest account checkpoint: a lost tail too). */
  gaps: Array<[number, number]>;
}

/**
 * Opens the ledger of a data dir and brings the store up to it. Balances in the store
 * are written in batches and may lag; each account carries `billedSeq`, the last ledger
 * line its balance includes, so every later line of that account is charged again here.
 * Also rebuilds the usage aggregates.
 */
export async function openLedgerAndReplay(
  store: Store,
  dataDir: string,
  options: { syncIntervalMs?: number; groupCommitMs?: number } = {},
): Promise<{ ledger: UsageLedger; usage: UsageIndex; report: ReplayReport }> {
  const usage = new UsageIndex();
  const accounts = new Map<string, BilledAccount>();
  for (const a of await store.accounts.list()) accounts.set(a.id, a as BilledAccount);
  const pending = new Map<string, { credits: number; seq: number }>();
  let entries = 0;
  let applied = 0;
  let appliedCredits = 0;
  const unknown = { count: 0, credits: 0 };
  let lastSeq = 0;
  const gaps: Array<[number, number]> = [];
  const visit = (entry: LedgerEntry): void => {
    entries += 1;
    usage.add(entry);
    if (typeof entry.seq === 'number') {
      if (entry.seq > lastSeq + 1) gaps.push([lastSeq + 1, entry.seq - 1]);
      lastSeq = Math.max(lastSeq, entry.seq);
    }
    const account = accounts.get(entry.account_id);
    if (!account) {
      unknown.count += 1;
      unknown.credits += entry.charged_credits ?? 0;
      return;
    }
    // Lines without seq predate billing (they never took credits).
    if (typeof entry.seq !== 'number' || entry.seq <= (account.billedSeq ?? 0)) return;
    const charge = entry.charged_credits ?? 0;
    const p = pending.get(account.id) ?? { credits: 0, seq: 0 };
    p.credits += charge;
    p.seq = Math.max(p.seq, entry.seq);
    pending.set(account.id, p);
    applied += 1;
    appliedCredits += charge;
  };
  // db.json can be on the disk with a checkpoint past the ledger's last surviving line (a power
  // loss took the ledger's unsynced tail): new lines are numbered past every checkpoint, or an
  // account's next lines would carry numbers its balance claims and the next replay skip them.
  let billedUpTo = 0;
  for (const a of accounts.values()) billedUpTo = Math.max(billedUpTo, a.billedSeq ?? 0);
  const ledger = UsageLedger.open(dataDir, { onEntry: visit, syncIntervalMs: options.syncIntervalMs, groupCommitMs: options.groupCommitMs, lastSeqAtLeast: billedUpTo });
  // Lines the balances hold but the ledger no longer has at its end (never cut by the gateway): missing too, not silently gone.
  if (billedUpTo > lastSeq) gaps.push([lastSeq + 1, billedUpTo]);
  for (const [id, p] of pending) {
    // A corrupt line's charge must not leave a balance NaN or out of bounds.
    const delta = boundedDelta(accounts.get(id)!.credits, -roundCredits(p.credits));
    await store.accounts.adjustCredits(id, delta, { billedSeq: p.seq });
  }
  if (pending.size > 0) await store.flush();
  const rejected = ledger.report.unreplayable;
  const rejectedSeqs = new Set(rejected.flatMap((r) => (r.seq === undefined ? [] : [r.seq])));
  const unreplayable: ReplayReport['unreplayable'] = {
    count: rejected.length,
    lines: rejected.map((r) => r.line),
    seqs: [...rejectedSeqs],
    credits: roundCredits(rejected.reduce((n, r) => n + (r.credits ?? 0), 0)),
  };
  if (ledger.report.keptIn) unreplayable.keptIn = ledger.report.keptIn;
  return {
    ledger,
    usage,
    report: {
      entries,
      applied,
      appliedCredits: roundCredits(appliedCredits),
      unreplayable,
      unknownAccounts: { count: unknown.count, credits: roundCredits(unknown.credits) },
      gaps: gaps.flatMap(([from, to]) => withoutSeqs(from, to, rejectedSeqs)),
    },
  };
}

/** The runs of [from, to] that none of `seqs` covers. */
function withoutSeqs(from: number, to: number, seqs: Set<number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = from;
  for (const n of [...seqs].filter((x) => x >= from && x <= to).sort((a, b) => a - b)) {
    if (n > start) out.push([start, n - 1]);
    start = n + 1;
  }
  if (start <= to) out.push([start, to]);
  return out;
}
