/**
 * The usage ledger's line per settled request, before and after encode-ledger-line.ts, in the
 * same run: before, `JSON.stringify({ seq, ...entry })`; now, seq set on the entry and the line
 * built by `encodeLedgerLine`. Each is timed on a fresh entry per call (as the guards build
 * one), alone and with the `Buffer.from` the ledger's write does (which flattens the string the
 * hand-built line leaves in pieces). Rounds alternate old and new so both see the same machine
 * load; the medians are printed, per call, with the ratio new/old. Run by hand:
 * `node --import tsx bench/ledger-line-bench.ts [--rounds 15] [--calls 200000]`.
 */
import { parseArgs } from 'node:util';
import { encodeLedgerLine } from '../src/store/file/encode-ledger-line.ts';
import { pricedEntry } from './priced-entry.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, calls: { type: 'string', default: '200000' } } });
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);


function oldLine(input: Record<string, unknown>, seq: number): string {
  return `${JSON.stringify({ seq, ...input })}\n`;
}

function newLine(input: Record<string, unknown>, seq: number): string {
  const entry = input as { seq: number };
  entry.seq = seq;
  return encodeLedgerLine(entry);
}

let sink = 0;
/** Ns per call over CALLS fresh entries. */
function time(line: (input: Record<string, unknown>, seq: number) => string, toBytes: boolean): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    const text = line(pricedEntry(i), i + 1);
    sink += toBytes ? Buffer.from(text).length : text.length;
  }
  return Number(process.hrtime.bigint() - start) / CALLS;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// The same text from both (a guard against timing two different things).
for (let i = 0; i < 1000; i++) if (oldLine(pricedEntry(i), i + 1) !== newLine(pricedEntry(i), i + 1)) throw new Error(`lines differ at ${i}`);

const rows = [];
for (const toBytes of [false, true]) {
  const old: number[] = [];
  const now: number[] = [];
  for (let round = 0; round < ROUNDS + 2; round++) {
    const a = time(oldLine, toBytes);
    const b = time(newLine, toBytes);
    // The first two rounds warm the JIT up.
    if (round >= 2) {
      old.push(a);
      now.push(b);
    }
  }
  const [o, n] = [median(old), median(now)];
  rows.push({ measured: toBytes ? 'line + Buffer.from (flattened)' : 'line (string)', 'old ns/call': o.toFixed(0), 'new ns/call': n.toFixed(0), 'new/old': (n / o).toFixed(2) });
}
console.table(rows);
if (sink < 0) console.log(sink);
