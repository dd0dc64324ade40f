/**
 * The load generator. It runs in its own process (forked by bench/run.ts) so its CPU never
 * counts against the target, and takes jobs over IPC:
 *
 *   parent → {type:'job', job}   child: probe once, warm up, drain → {type:'warm'} or {type:'failed'}
 *   parent → {type:'go'}         child: measure, drain → {type:'result', result}
 *
 * The pause between `warm` and `go` is where the parent reads the target's CPU counters, so
 * the measured window holds exactly the measured requests. Requests go out on an undici Pool
 * with one connection per in-flight request (`concurrency`), each worker sending back to back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

export interface LoadJob {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  concurrency: number;
  warmupMs: number;
  /** Warm up for at least this many requests too (JIT: a cold target is several times slower). */
  warmupRequests?: number;
  durationMs: number;
  /** Stop the measured phase after this many requests even if time is left. */
  maxRequests?: number;
  /** Must match the end of every response body (last 512 bytes); the probe checks the whole body. */
  expect: string;
  /** `authorization` header values the workers take in turn (worker i: i mod n); default: `headers` as is. */
  authorizations?: string[];
  /**
   * Paced instead of back to back: the workers together start about this many requests a
   * second, each on its own fixed schedule (a response later than its next slot starts the next
   * request at once). Latency at one offered load, below saturation, where a closed loop's p50
   * only follows its throughput.
   */
  ratePerSec?: number;
  /**
   * The measured phase on new connections (the warm-up's closed once `go` comes): a target slowed
   * down (under valgrind) may close the warm-up's connections as idle while the parent reads its
   * counters, and a request sent on one as it closes fails.
   */
  reconnect?: boolean;
}

export interface LoadResult {
  requests: number;
  errors: number;
  firstError?: string;
  elapsedMs: number;
  rps: number;
  /** Time to the full response, ms. */
  p50: number;
  p99: number;
  mean: number;
  /** Time to the first body byte, ms. */
  ttfbP50: number;
  ttfbP99: number;
}

export type ParentMessage = { type: 'job'; job: LoadJob } | { type: 'go' } | { type: 'exit' };
export type ChildMessage =
  | { type: 'ready' }
  | { type: 'warm' }
  | { type: 'failed'; message: string }
  | { type: 'result'; result: LoadResult };

interface Sample {
  ok: boolean;
  totalMs: number;
  ttfbMs: number;
  status: number;
  error?: string;
  body?: string;
}

const TAIL = 512;

/** Sends one request and times it; never rejects. `keepBody` keeps the whole body (for the probe). */
export function sendOnce(pool: Pool, job: LoadJob, expect: RegExp, keepBody = false): Promise<Sample> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let ttfb = 0;
    let status = 0;
    let tail = '';
    let body = '';
    pool.dispatch(
      { method: 'POST', path: job.path, headers: job.headers, body: job.body },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          if (ttfb === 0) ttfb = performance.now() - t0;
          const text = chunk.toString('latin1');
          if (keepBody) body += text;
          tail = text.length >= TAIL ? text.slice(-TAIL) : (tail + text).slice(-TAIL);
        },
        onResponseEnd() {
          const totalMs = performance.now() - t0;
          const ok = status === 200 && expect.test(tail);
          const error = ok ? undefined : `HTTP ${status}: ${tail.slice(0, 200).replace(/\s+/g, ' ')}`;
          resolve({ ok, totalMs, ttfbMs: ttfb || totalMs, status, error, body: keepBody ? body : undefined });
        },
        onResponseError(_controller, error) {
          resolve({ ok: false, totalMs: performance.now() - t0, ttfbMs: 0, status, error: error.message });
        },
      },
    );
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `concurrency` workers back to back until `deadline` and `min` requests (at most `max`); collects samples. */
async function drive(
  pool: Pool,
  job: LoadJob,
  expect: RegExp,
  deadline: number,
  max: number,
  min = 0,
): Promise<{ samples: Sample[]; elapsedMs: number }> {
  const samples: Sample[] = [];
  let started = 0;
  const t0 = performance.now();
  const interval = job.ratePerSec ? (job.concurrency * 1000) / job.ratePerSec : 0;
  const worker = async (index: number) => {
    // With several keys, worker i sends with key i mod n (several accounts at once).
    const keys = job.authorizations;
    const mine = keys && keys.length > 0 ? { ...job, headers: { ...job.headers, authorization: keys[index % keys.length] } } : job;
    let next = t0 + (index * interval) / job.concurrency;
    while ((performance.now() < deadline || started < min) && started < max) {
      if (interval > 0) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        next += interval;
      }
      started += 1;
      samples.push(await sendOnce(pool, mine, expect));
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, (_, index) => worker(index)));
  return { samples, elapsedMs: performance.now() - t0 };
}

function summarise(samples: Sample[], elapsedMs: number): LoadResult {
  const good = samples.filter((s) => s.ok);
  const totals = good.map((s) => s.totalMs).sort((a, b) => a - b);
  const ttfbs = good.map((s) => s.ttfbMs).sort((a, b) => a - b);
  const failed = samples.find((s) => !s.ok);
  return {
    requests: samples.length,
    errors: samples.length - good.length,
    firstError: failed?.error,
    elapsedMs,
    rps: (good.length * 1000) / elapsedMs,
    p50: percentile(totals, 50),
    p99: percentile(totals, 99),
    mean: totals.reduce((a, b) => a + b, 0) / Math.max(1, totals.length),
    ttfbP50: percentile(ttfbs, 50),
    ttfbP99: percentile(ttfbs, 99),
  };
}

/** Probe, warm up, wait for `go`, measure. `waitForGo` resolves when the parent says go. */
export async function runJob(job: LoadJob, events: { warm: () => void; waitForGo: () => Promise<void> }): Promise<LoadResult> {
  const newPool = () => new Pool(job.origin, { connections: job.concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  let pool = newPool();
  const expect = new RegExp(job.expect);
  try {
    const probe = await sendOnce(pool, job, expect, true);
    if (!probe.ok) {
      const detail = probe.body ? `HTTP ${probe.status}: ${probe.body.slice(0, 300).replace(/\s+/g, ' ')}` : probe.error;
      throw new Error(detail ?? `HTTP ${probe.status}`);
    }
    await drive(pool, job, expect, performance.now() + job.warmupMs, Infinity, job.warmupRequests ?? 0);
    events.warm();
    await events.waitForGo();
    if (job.reconnect) {
      await pool.close();
      pool = newPool();
    }
    const { samples, elapsedMs } = await drive(pool, job, expect, performance.now() + job.durationMs, job.maxRequests ?? Infinity);
    return summarise(samples, elapsedMs);
  } finally {
    await pool.close().catch(() => undefined);
  }
}

function serveOverIpc(): void {
  const send = (message: ChildMessage) => process.send?.(message);
  let go: (() => void) | undefined;
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'go') go?.();
    else if (message.type === 'exit') process.exit(0);
    else if (message.type === 'job') {
      runJob(message.job, {
        warm: () => send({ type: 'warm' }),
        waitForGo: () => new Promise<void>((resolve) => (go = resolve)),
      }).then(
        (result) => send({ type: 'result', result }),
        (error: Error) => send({ type: 'failed', message: error.message }),
      );
    }
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' });
}

if (process.send) serveOverIpc();
else {
  // Stand-alone: `node --import tsx bench/load.ts <url> [concurrency] [seconds]` sends a chat request.
  const url = new URL(process.argv[2] ?? 'http://127.0.0.1:8787/v1/chat/completions');
  const job: LoadJob = {
    origin: url.origin,
    path: url.pathname,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.GATEWAY_KEY ?? 'x'}` },
    body: JSON.stringify({ model: process.env.BENCH_MODEL ?? 'bench-model', messages: [{ role: 'user', content: 'Hello' }] }),
    concurrency: Number(process.argv[3] ?? 1),
    warmupMs: 500,
    durationMs: Number(process.argv[4] ?? 3) * 1000,
    expect: '.',
  };
  const result = await runJob(job, { warm: () => undefined, waitForGo: async () => undefined });
  console.log(result);
}
