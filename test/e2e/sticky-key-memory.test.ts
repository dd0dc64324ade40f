/**
 * Sticky routing remembers up to `routing.sticky.maxSessions` (100,000) session keys, each read
 * from the request: `prompt_cache_key` and Anthropic's `metadata.user_id` from the body (as long
 * as the body limit lets them be), `X-Session-Id` from a header. A key is kept as a bounded
 * digest when it is long: before, every session held its whole key, so a client sending long
 * distinct `prompt_cache_key`s grew the gateway's heap by their size with each request (40
 * requests of 16 MB kept 640 MB) until the process ran out of memory. Real CLI, mock provider,
 * the gateway's RSS read from /proc.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const KEY_BYTES = 16 * 1024 * 1024;
const REQUESTS = 40;

const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('sticky session keys are bounded in memory (bin/gateway, mock provider)', () => {
  let gw: SpawnedGateway;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, billing: { enforce: false } } });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it(`${REQUESTS} requests with distinct 16 MB prompt_cache_keys leave the heap about where it was`, { timeout: 180_000 }, async () => {
    const ask = (cacheKey: string) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/echo', max_tokens: 4, prompt_cache_key: cacheKey, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const warm = await ask('warm-up');
    expect(warm.status).toBe(200);
    const before = rssOf(gw.process.pid!);
    const filler = 'k'.repeat(KEY_BYTES);
    for (let i = 0; i < REQUESTS; i++) {
      const res = await ask(`${i}-${filler}`);
      expect(res.status, await res.clone().text().then((t) => t.slice(0, 200))).toBe(200);
      await res.arrayBuffer();
    }
    const grown = rssOf(gw.process.pid!) - before;
    console.log(`gateway RSS grew ${(grown / 1024 / 1024).toFixed(0)} MB over ${REQUESTS} requests of ${KEY_BYTES / 1024 / 1024} MB keys`);
    expect(grown).toBeLessThan((REQUESTS * KEY_BYTES) / 2);
  });
});
