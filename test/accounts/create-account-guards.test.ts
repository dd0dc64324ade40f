// The guards wait briefly for a limiter in another process before the first request (the
// limiter port's ready()), and say when it did not answer: requests meet its failure policy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/app/create-gateway.ts';
import { parseConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { REPO_ROOT } from './make-gateway.ts';

const dirs: string[] = [];
// A full CI run once met ENOTEMPTY here: close() resolved while the media jobs' first content sweep was still
// making <dataDir>/media-content. close() waits for the start-up sweeps now (test/app/gateway-close.test.ts).
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts and stops a gateway whose limiter is `store`; returns the warnings it logged. */
async function startupWarnings(store: unknown): Promise<string[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-guards-'));
  dirs.push(dataDir);
  const lines: string[] = [];
  const config = parseConfig({ providers: { mock: { plugin: 'mock' } }, limits: { store } });
  const gateway = await createGateway({ config, configDir: REPO_ROOT, dataDir, log: createLogger('warn', (line) => lines.push(line)) });
  await gateway.close();
  return lines;
}

describe('createAccountGuards', () => {
  it('warns once at start-up when the shared limiter does not answer, naming the policy requests meet', async () => {
    const lines = await startupWarnings({ redis: 'redis://127.0.0.1:1', onError: 'closed', prefix: `gw:rl:test:guards:${process.pid}:` });
    expect(lines.filter((line) => line.includes('at startup'))).toEqual([expect.stringContaining('rate-limit store: Redis not reachable at startup; applying fail-closed policy until it is')]);
  });

  it('says nothing when the shared limiter answers, nor for the in-process one', async () => {
    const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    expect((await startupWarnings({ redis, prefix: `gw:rl:test:guards:${process.pid}:` })).filter((line) => line.includes('at startup'))).toEqual([]);
    expect((await startupWarnings('memory')).filter((line) => line.includes('at startup'))).toEqual([]);
  });
});
