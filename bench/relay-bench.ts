/**
 * µs per streamed answer of the record relay alone (no sockets): the fake upstream's Chat
 * stream (role chunk, 20 content chunks, finish chunk, usage chunk, [DONE]), one chunk per
 * push as a real upstream delivers them, through the passthrough relay (Chat → Chat, the
 * usage chunk dropped) and the converting relay (Chat → Messages). CPU time, not wall time. Baselines in the same run:
 * `toString` of every chunk, and the SSE reader (cut + parse) alone.
 * `--burst`: the whole stream in one chunk, as a fast upstream or a cache writes it.
 * Run by hand: `node --import tsx bench/relay-bench.ts [N] [--burst]`.
 */
import { relayStream } from '../src/pipeline/relay-stream.ts';
import type { RelayOptions } from '../src/pipeline/relay-records.ts';
import { RecordReader } from '../src/sse/index.ts';
import type { ChatRequest } from '../src/ir/types.ts';
import { FastAbortController } from '../src/util/abort.ts';
import { rememberSecretHeader } from '../src/util/index.ts';
import { countingTarget } from './counting-target.ts';
import { buildStreamEvents } from './fake-upstream.ts';
import { relayOnce } from './relay-once.ts';

const burst = process.argv.includes('--burst');
// As in a gateway: the upstream's credential is remembered, so passed records are checked for it.
rememberSecretHeader('Bearer sk-bench-upstream-key-000000000000');
const events = burst ? [Buffer.concat(buildStreamEvents(true))] : buildStreamEvents(true);
const request = { model: 'bench/bench-model', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Write one sentence about a quick brown fox.' }] }], stream: true } as unknown as ChatRequest;
const client = new FastAbortController();
const upstream = { response: { status: 200, headers: {}, body: undefined }, abort() {}, done() {}, watch: new FastAbortController() } as unknown as RelayOptions['upstream'];
let sink = 0;
const target = countingTarget();

/** One answer through a relay of this checkout, to a client of `clientFormat` (chat: the passthrough). */
const relays = Object.fromEntries(
  (['chat', 'messages'] as const).map((clientFormat) => [clientFormat, relayOnce({ relayStream, RecordReader }, { events, clientFormat, request, upstream, client, stripUsageChunk: process.env.RELAY_STRIP !== '0', target })]),
);
const relayOnceTo = (clientFormat: 'chat' | 'messages') => relays[clientFormat]();

/** CPU µs per call (this thread's user + system time, so waiting for a core on a busy machine does not count). */
function time(n: number, op: () => void): number {
  for (let i = 0; i < Math.min(n, 5_000); i += 1) op();
  const start = process.cpuUsage();
  for (let i = 0; i < n; i += 1) op();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const N = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 30_000);
const rows: Record<string, string>[] = [];
for (let round = 0; round < 3; round += 1) {
  const strings = time(N, () => {
    for (const e of events) sink += e.toString('utf8').length;
  });
  const reader = time(N, () => {
    const r = new RecordReader();
    for (const e of events) sink += r.push(e).length + r.records.length;
  });
  const only = process.env.RELAY_ONLY;
  const pass = only === 'messages' ? NaN : time(N, () => relayOnceTo('chat'));
  const convert = only === 'chat' ? NaN : time(N, () => relayOnceTo('messages'));
  rows.push({ round: String(round + 1), 'toString µs': strings.toFixed(2), 'reader µs': reader.toFixed(2), 'passthrough µs': pass.toFixed(2), 'Chat→Messages µs': convert.toFixed(2), 'passthrough ÷ reader': (pass / reader).toFixed(2) });
}
console.log(`${events.length} upstream chunks per answer`);
console.table(rows);
if (sink + target.bytes < 0) console.log(sink);
