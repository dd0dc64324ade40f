/**
 * The hold rule from outside (issue 27 §3), file store: 300 concurrent priced requests with a
 * 5-character prompt on credit for 100 leave the balance at or above zero, every answer charged
 * in full (its ledger line), and the balance drop equal to the ledger sum after a restart; an
 * upstream that bills more than the hold is charged the difference, said in the log, and the
 * account is refused once at zero. Hold sizes are in the request log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { chatOnce, creditsOf, FIVE_CHARS, PER_TOKEN, type Answer } from '../helpers/credit-holds.ts';

let gw: SpawnedGateway | undefined;
let upstream: FakeUpstream | undefined;
afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

async function accountWithKey(configFile: string, dataDir: string, email: string, credits: number): Promise<string> {
  const made = await runCli(['--config', configFile, '--data-dir', dataDir, 'accounts', 'create', '--email', email, '--credits', String(credits), '--tier', 'enterprise']);
  expect(made.exitCode, String(made.stderr)).toBe(0);
  const key = await runCli(['--config', configFile, '--data-dir', dataDir, 'keys', 'create', '--account', email, '--json']);
  expect(key.exitCode, String(key.stderr)).toBe(0);
  return (JSON.parse(String(key.stdout)) as { key: string }).key;
}

describe('credit holds on the file store (real CLI)', () => {
  it('300 concurrent requests with a 5-character prompt on credit for 100: balance >= 0, no answer uncharged, drop = ledger after restart', async () => {
    const dir = tempDir('gw-holds-');
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: PER_TOKEN }] } }, logging: { requests: 'requests.jsonl' } });
    // One request: 'spend' bills 5 input tokens (the mock: 2 + 3 a message) and 2 output tokens = 7 credits.
    const credit = 100 * 7;
    const key = await accountWithKey(configFile, dataDir, 'holds@example.test', credit);
    gw = await spawnGateway({ configFile, dataDir });
    const answers = await Promise.all(Array.from({ length: 300 }, () => chatOnce(gw!.url, key, { content: FIVE_CHARS, max_tokens: 4 })));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.length).toBeLessThanOrEqual(100);
    expect(new Set(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.code}`))).toEqual(new Set(['402 insufficient_balance']));
    const balance = await creditsOf(gw.url, key);
    expect(balance).toBeGreaterThanOrEqual(0);
    await gw.stop();

    // Every answer has its line, charged in full; nothing else has one.
    const lines = readLedger(path.join(dataDir, 'usage.jsonl'));
    expect(new Set(lines.map((l) => l.request_id))).toEqual(new Set(ok.map((a) => a.requestId)));
    for (const line of lines) expect(line.charged_credits).toBe(line.cost_credits);
    const ledgerSum = lines.reduce((n, l) => n + l.charged_credits, 0);
    // The request log shows each answer's hold: the worst case (29 input tokens at most + max_tokens 4).
    const logged = fs.readFileSync(path.join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { route: string; status: number; hold_credits: number | null; charged_credits: number | null });
    const served = logged.filter((l) => l.route === '/v1/chat/completions' && l.status === 200);
    expect(served.length).toBe(ok.length);
    for (const line of served) {
      expect(line.hold_credits).toBe(33);
      expect(line.charged_credits!).toBeLessThanOrEqual(line.hold_credits!);
    }

    gw = await spawnGateway({ configFile, dataDir });
    const after = await creditsOf(gw.url, key);
    expect(after).toBeGreaterThanOrEqual(0);
    expect(credit - after).toBeCloseTo(ledgerSum, 6);
    await gw.stop();
    gw = undefined;
  }, 120_000);

  it('an upstream billing more than the hold: the difference is charged and logged, the balance stays >= 0, and the account is refused at zero', async () => {
    // Bills 1,000 input tokens for any prompt: far beyond the hold of a 5-character one.
    upstream = await startFakeUpstream(() => ({
      json: { id: 'chatcmpl-big', object: 'chat.completion', created: 1, model: 'big', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1000, completion_tokens: 1, total_tokens: 1001 } },
    }));
    const dir = tempDir('gw-holds-over-');
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, { providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'upstream-secret', models: [{ id: 'big', pricing: PER_TOKEN }] } } });
    const credit = 2_500;
    const key = await accountWithKey(configFile, dataDir, 'over@example.test', credit);
    gw = await spawnGateway({ configFile, dataDir });
    const answers: Answer[] = await Promise.all(Array.from({ length: 20 }, () => chatOnce(gw!.url, key, { model: 'up/big', content: FIVE_CHARS, max_tokens: 4 })));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(await creditsOf(gw.url, key)).toBe(0);
    // At zero: refused.
    const refused = await chatOnce(gw.url, key, { model: 'up/big', content: FIVE_CHARS, max_tokens: 4 });
    expect(`${refused.status} ${refused.code}`).toBe('402 insufficient_balance');
    await gw.stop();
    expect(gw.stdout() + gw.stderr()).toContain('the upstream billed more than the hold');
    const lines = readLedger(path.join(dataDir, 'usage.jsonl'));
    expect(lines.length).toBe(ok.length);
    // Charged beyond each hold as far as the balance went: all of it, never more.
    expect(lines.reduce((n, l) => n + l.charged_credits, 0)).toBeCloseTo(credit, 6);
    expect(lines.filter((l) => l.charged_credits > 33).length).toBeGreaterThan(0);
    gw = undefined;
  }, 120_000);
});
