/**
 * A Gemini file batch's responses file (`files/batch-…`) for a large batch: the time and the
 * gateway's peak RSS growth of a metadata read (`GET files/batch-…`) and of a download
 * (`…:download?alt=media`), each from a peak reset just before (docs/batches.md).
 *
 *   node --import tsx bench/gemini-responses-file-bench.ts [--lines 20000] [--chars 400]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { spawnGateway } from '../test/helpers/spawn-gateway.ts';

const { values } = parseArgs({ options: { lines: { type: 'string', default: '20000' }, chars: { type: 'string', default: '400' } } });
const LINES = Number(values.lines);
const prompt = 'x'.repeat(Number(values.chars));

let gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, batches: { concurrency: 16 } } });
let pid = gw.process.pid!;
const headers = { 'x-goog-api-key': gw.key! };

/** The same gateway again in a fresh process (its data dir kept): each phase starts from a clean heap. */
async function restart(): Promise<void> {
  await gw.stop();
  gw = await spawnGateway({ configFile: gw.configFile, dataDir: gw.dataDir });
  pid = gw.process.pid!;
  // One small request first, so the phase does not count the server's first-request warm-up.
  await (await fetch(`${gw.url}/v1beta/models`, { headers })).text();
}

/** The process's resident and peak resident memory (MB). */
function memory(): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Runs `read` with the peak reset before: ms, bytes read, peak growth over the RSS before (MB). */
async function measure(read: () => Promise<number>): Promise<{ ms: number; bytes: number; peakGrowthMb: number }> {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = memory().rss;
  const t = performance.now();
  const bytes = await read();
  const ms = performance.now() - t;
  return { ms: Math.round(ms), bytes, peakGrowthMb: Math.round((memory().peak - before) * 10) / 10 };
}

try {
  const body = `${Array.from({ length: LINES }, (_, i) => JSON.stringify({ key: `k${i}`, request: { contents: [{ parts: [{ text: `${i} ${prompt}` }] }] } })).join('\n')}\n`;
  const start = await fetch(`${gw.url}/upload/v1beta/files`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': String(Buffer.byteLength(body)), 'x-goog-upload-header-content-type': 'application/jsonl' },
    body: JSON.stringify({ file: { display_name: 'bench' } }),
  });
  const upload = await fetch(start.headers.get('x-goog-upload-url')!, { method: 'POST', headers: { ...headers, 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' }, body });
  const file = ((await upload.json()) as { file: { name: string } }).file;
  const created = (await (await fetch(`${gw.url}/v1beta/models/mock/echo:batchGenerateContent`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ batch: { inputConfig: { fileName: file.name } } }) })).json()) as { name: string };
  const began = performance.now();
  let op: { done?: boolean; response?: { responsesFile?: string } } = {};
  while (!op.done) {
    await new Promise((r) => setTimeout(r, 500));
    op = (await (await fetch(`${gw.url}/v1beta/${created.name}`, { headers })).json()) as typeof op;
  }
  const responses = op.response!.responsesFile!;
  console.log(`batch of ${LINES} lines ran in ${Math.round(performance.now() - began)} ms; responses file ${responses}`);
  await restart();
  for (let i = 1; i <= 3; i++) {
    const meta = await measure(async () => {
      const res = await fetch(`${gw.url}/v1beta/${responses}`, { headers });
      const text = await res.text();
      if (i === 1) console.log(`  metadata: ${text.slice(0, 200)}`);
      return text.length;
    });
    console.log(`metadata read ${i}: ${JSON.stringify(meta)}`);
  }
  await restart();
  for (let i = 1; i <= 2; i++) {
    const download = await measure(async () => {
      const res = await fetch(`${gw.url}/v1beta/${responses}:download?alt=media`, { headers });
      let bytes = 0;
      for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
      return bytes;
    });
    console.log(`download ${i}: ${JSON.stringify(download)}`);
  }
  console.log(`rss at the end: ${Math.round(memory().rss)} MB`);
} finally {
  await gw.stop();
}
