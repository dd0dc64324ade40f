/**
 * What the answer fields (answer_id, finish_reason, streamed, latency_ms: GET /v1/generation by
 * the answer's own id) cost a settled request's ledger line, in the same run: before, a chat
 * request's priced line as AccountGuards built it; after, the same line with `answerFields`
 * adding the four from a settlement (its checks included). Each is timed on a fresh entry per
 * call (CPU time), with `encodeLedgerLine` and the `Buffer.from` the ledger's write does. Rounds alternate
 * before and after so both see the same machine load; the medians and the minimums (the least
 * disturbed round, on a loaded machine) are printed, per call, with the difference and the
 * line's bytes. Run by hand:
 * `nice -n 19 node --import tsx bench/ledger-answer-fields-bench.ts [--rounds 15] [--calls 200000]`.
 */
import { parseArgs } from 'node:util';
import { answerFields } from '../src/accounts/answer-fields.ts';
import type { PricedEntry } from '../src/credits/index.ts';
import type { Settlement } from '../src/pipeline/index.ts';
import { encodeLedgerLine } from '../src/store/file/encode-ledger-line.ts';
import { pricedEntry } from './priced-entry.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, calls: { type: 'string', default: '200000' } } });
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);

const ANSWER_IDS = Array.from({ length: 4096 }, (_, i) => `chatcmpl-${(2e15 + i * 104729).toString(36)}Bx${i.toString(36)}`);

/** What the settlement carries for it (a passthrough stream: its id, no finish reason; or a whole answer's). */
const SETTLEMENTS = Array.from({ length: 4096 }, (_, i) => {
  const s = { responseId: ANSWER_IDS[i], streamed: (i & 1) === 0, arrivedAt: 1_764_450_000_000 + i - 800 - (i & 255) } as Settlement;
  if (!s.streamed) s.finishReason = 'stop';
  return s;
});

function before(i: number): string {
  const entry = pricedEntry(i) as PricedEntry & { seq: number };
  entry.seq = i + 1;
  return encodeLedgerLine(entry);
}

function after(i: number): string {
  const entry = pricedEntry(i) as PricedEntry & { seq: number };
  answerFields(entry, SETTLEMENTS[i & 4095], entry.request_id, entry.ts);
  entry.seq = i + 1;
  return encodeLedgerLine(entry);
}

let sink = 0;
/**
 * CPU ns per call over CALLS fresh entries, the line flattened to bytes as the write does. CPU
 * time, not wall time: on a machine busy with other work (nice 19) the wall clock mostly measures
 * the time this process waited for a core.
 */
function time(line: (i: number) => string): number {
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) sink += Buffer.from(line(i)).length;
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / CALLS;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const old: number[] = [];
const now: number[] = [];
for (let round = 0; round < ROUNDS + 2; round++) {
  const a = time(before);
  const b = time(after);
  // The first two rounds warm the JIT up.
  if (round >= 2) {
    old.push(a);
    now.push(b);
  }
}
const [o, n] = [median(old), median(now)];
const [oMin, nMin] = [Math.min(...old), Math.min(...now)];
const bytes = (line: (i: number) => string) => {
  let total = 0;
  for (let i = 0; i < 4096; i++) total += Buffer.byteLength(line(i));
  return (total / 4096).toFixed(0);
};
console.table([
  { rounds: 'median', 'before ns/call': o.toFixed(0), 'after ns/call': n.toFixed(0), 'added ns': (n - o).toFixed(0), 'before bytes': bytes(before), 'after bytes': bytes(after) },
  { rounds: 'minimum', 'before ns/call': oMin.toFixed(0), 'after ns/call': nMin.toFixed(0), 'added ns': (nMin - oMin).toFixed(0) },
]);
if (sink < 0) console.log(sink);
