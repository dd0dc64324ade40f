/**
 * The record relay of two checkouts in one process, measured in turn round after round: CPU µs
 * per streamed answer of each, and the median of each round's own ratio (after ÷ before). Both
 * see the same machine load within a round, so on a busy box a change of 2-3 % shows here when
 * separate relay-bench runs move by 20 %. The answer is the fake upstream's Chat stream, as in
 * relay-bench.ts, all in one chunk (`--trickle`: one event per chunk), relayed to a Messages
 * client (a conversion; `--format chat`: the passthrough). Each checkout needs its own `src/`
 * and `bench/` (e.g. a `git archive` of the commit before, node_modules linked).
 *
 *   node --import tsx bench/relay-ab.ts --before <checkout> [--after <checkout, default this one>] [--rounds 40] [--trickle] [--format messages|chat]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { countingTarget } from './counting-target.ts';
import { relayOnce, type RelayRun } from './relay-once.ts';
import { REPO } from './targets.ts';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    rounds: { type: 'string', default: '40' },
    trickle: { type: 'boolean' },
    format: { type: 'string', default: 'messages' },
  },
});
if (!values.before) {
  console.error('usage: node --import tsx bench/relay-ab.ts --before <checkout> [--after <checkout>] [--rounds 40] [--trickle] [--format messages|chat]');
  process.exit(1);
}

const target = countingTarget();

/** One streamed answer through the relay of the checkout at `dir`, as a function. */
async function relayOf(dir: string): Promise<() => void> {
  const at = (file: string) => path.join(path.resolve(dir), file);
  const { relayStream } = (await import(at('src/pipeline/relay-stream.ts'))) as typeof import('../src/pipeline/relay-stream.ts');
  const { RecordReader } = (await import(at('src/sse/index.ts'))) as typeof import('../src/sse/index.ts');
  const { FastAbortController } = (await import(at('src/util/abort.ts'))) as typeof import('../src/util/abort.ts');
  const { rememberSecretHeader } = (await import(at('src/util/index.ts'))) as typeof import('../src/util/index.ts');
  const { buildStreamEvents } = (await import(at('bench/fake-upstream.ts'))) as typeof import('./fake-upstream.ts');
  // As in a gateway: the upstream's credential is remembered, so passed records are checked for it.
  rememberSecretHeader('Bearer sk-bench-upstream-key-000000000000');
  const events = values.trickle ? buildStreamEvents(true) : [Buffer.concat(buildStreamEvents(true))];
  const clientFormat = values.format === 'chat' ? 'chat' : 'messages';
  const request = { model: 'bench/bench-model', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Write one sentence about a quick brown fox.' }] }], stream: true };
  const upstream = { response: { status: 200, headers: {}, body: undefined }, abort() {}, done() {}, watch: new FastAbortController() } as unknown as RelayRun['upstream'];
  return relayOnce({ relayStream, RecordReader }, { events, clientFormat, request, upstream, client: new FastAbortController(), stripUsageChunk: true, target });
}

/** CPU µs per call (this thread's user + system time, so waiting for a core does not count). */
function time(op: () => void, n: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i += 1) op();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)];

const before = await relayOf(values.before);
const after = await relayOf(values.after ?? REPO);
for (let i = 0; i < 10_000; i += 1) {
  before();
  after();
}
const ratios: number[] = [];
const b: number[] = [];
const a: number[] = [];
for (let round = 0; round < Number(values.rounds); round += 1) {
  const tb = time(before, 2_000);
  const ta = time(after, 2_000);
  b.push(tb);
  a.push(ta);
  ratios.push(ta / tb);
}
console.log(
  `${values.format} ${values.trickle ? 'trickle' : 'burst'}: before ${median(b).toFixed(2)} µs (min ${Math.min(...b).toFixed(2)}), after ${median(a).toFixed(2)} µs (min ${Math.min(...a).toFixed(2)}); ` +
    `after ÷ before per round: median ${median(ratios).toFixed(3)} [${quantile(ratios, 0.25).toFixed(3)}–${quantile(ratios, 0.75).toFixed(3)}] over ${ratios.length} rounds`,
);
if (target.bytes < 0) console.log(target.bytes);
