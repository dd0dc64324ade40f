/**
 * A stored Response is one of an answer's records (docs/billing.md, "When the data dir cannot be
 * written"): when it cannot be written the answer fails and the request is not charged, as when
 * its usage ledger line cannot be. Here only the stored Responses are out of space (their folder
 * a full tmpfs, mounted by the test; CI runs as root): the ledger can be written. Before, the call
 * was charged when the pipeline settled, before the save failed, and the 503 then said "it was not
 * charged. Retry shortly." — a client that retried paid twice.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { creditsOf, PER_TOKEN } from '../helpers/credit-holds.ts';
import { createFundedKey } from '../helpers/funded-key.ts';
import { fillUntilFull } from '../helpers/fill-until-full.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const dir = tempDir('gw-respfull-');
const dataDir = path.join(dir, 'data');
const responsesDir = path.join(dataDir, 'responses');
let mounted = false;
let gw: SpawnedGateway | undefined;

afterAll(async () => {
  await gw?.kill();
  if (mounted) execFileSync('umount', ['-l', responsesDir]);
});

describe('a stored Response that cannot be written (real CLI, file store, its folder on a full tmpfs)', () => {
  it('fails the answer and charges nothing, JSON and streamed', async () => {
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: PER_TOKEN }] } } });
    const key = await createFundedKey(configFile, dataDir, 'store@example.test', null);
    fs.mkdirSync(responsesDir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', responsesDir]);
    mounted = true;
    gw = await spawnGateway({ configFile, dataDir });
    const url = gw.url;
    const before = await creditsOf(url, key);
    fillUntilFull(path.join(responsesDir, 'filler'));

    const ask = (stream: boolean) =>
      fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/echo', input: 'hello there', max_output_tokens: 8, ...(stream ? { stream: true } : {}) }),
      });
    const whole = await ask(false);
    const wholeText = await whole.text();
    expect(whole.status, wholeText).toBe(503);
    expect(wholeText).toContain('stored response');
    // The data dir itself can be written: the gateway serves again once its probe says so.
    await expect.poll(async () => (await fetch(`${url}/health`)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    const streamed = await ask(true);
    expect(streamed.status).toBe(200);
    const streamedText = await streamed.text().catch(() => '(cut)');
    expect(streamedText).not.toContain('response.completed');
    await expect.poll(async () => (await fetch(`${url}/health`)).status, { timeout: 10_000, interval: 100 }).toBe(200);

    const ids = [whole.headers.get('x-request-id'), streamed.headers.get('x-request-id')];
    expect(await creditsOf(url, key)).toBe(before);
    await gw.stop();
    gw = undefined;
    const charged = readLedger(path.join(dataDir, 'usage.jsonl')).filter((line) => ids.includes(line.request_id) && line.charged_credits > 0);
    expect(charged).toEqual([]);
  }, 60_000);
});
