/**
 * A 10,000-line batch on `mock`: lines per second, the gateway's peak RSS, and the p50
 * latency of live requests while the batch runs, as a ratio to live requests alone measured
 * in the same run (docs/batches.md).
 *
 *   node --import tsx bench/batches-bench.ts [--lines 10000] [--live 300]
 */
import { parseArgs } from 'node:util';
import { readPeakRssMb } from './processes.ts';
import { spawnGateway } from '../test/helpers/spawn-gateway.ts';

const { values } = parseArgs({ options: { lines: { type: 'string', default: '10000' }, live: { type: 'string', default: '300' } } });
const LINES = Number(values.lines);
const LIVE = Number(values.live);

const gw = await spawnGateway();
const auth = { authorization: `Bearer ${gw.key}` };
const chat = { model: 'mock/echo', messages: [{ role: 'user', content: 'how fast is this?' }] };

async function liveP50(count: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    await res.text();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

try {
  await liveP50(50); // warm-up
  const alone = await liveP50(LIVE);
  const text = Array.from({ length: LINES }, (_, i) => JSON.stringify({ custom_id: `c${i}`, method: 'POST', url: '/v1/chat/completions', body: chat })).join('\n');
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob([text]), 'bench.jsonl');
  const file = (await (await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: auth, body: form })).json()) as { id: string };
  const started = performance.now();
  const batch = (await (await fetch(`${gw.url}/v1/batches`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }) })).json()) as { id: string };
  const during = await liveP50(LIVE);
  let status = '';
  let counts = { completed: 0, failed: 0 };
  while (!['completed', 'failed', 'expired', 'cancelled'].includes(status)) {
    await new Promise((r) => setTimeout(r, 200));
    const b = (await (await fetch(`${gw.url}/v1/batches/${batch.id}`, { headers: auth })).json()) as { status: string; request_counts: { completed: number; failed: number } };
    status = b.status;
    counts = b.request_counts;
  }
  const seconds = (performance.now() - started) / 1000;
  const rss = readPeakRssMb(gw.process.pid!);
  console.log(JSON.stringify({ lines: LINES, status, ...counts, seconds: Number(seconds.toFixed(2)), linesPerSecond: Math.round(LINES / seconds), peakRssMb: rss, liveP50AloneMs: Number(alone.toFixed(2)), liveP50DuringMs: Number(during.toFixed(2)), ratio: Number((during / alone).toFixed(2)) }));
} finally {
  await gw.stop();
}
