/**
 * Issue 27, finding 7 and the address half of 8, from outside: behind `trustProxy: 1` the
 * client address is the one the proxy appended to X-Forwarded-For, so 60 logins with a
 * forged leftmost entry are throttled after 5; and temporary image URLs never take the host a
 * client names (Host, X-Forwarded-Host).
 */
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('client addresses behind a trusted proxy', () => {
  let gw: SpawnedGateway;
  let key: string;

  beforeAll(async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, { server: { trustProxy: 1 }, providers: { mock: { plugin: 'mock' } } });
    const created = await runCli(['--config', configFile, '--data-dir', dataDir, 'accounts', 'create', '--email', 'victim@example.test', '--password', 'correct horse battery', '--credits', '1000']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    const keyed = await runCli(['--config', configFile, '--data-dir', dataDir, 'keys', 'create', '--account', 'victim@example.test', '--json']);
    key = (JSON.parse(String(keyed.stdout)) as { key: string }).key;
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  const login = (forwardedFor: string) =>
    fetch(`${gw.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ email: 'victim@example.test', password: 'a wrong guess' }),
    });

  it('60 guesses with a forged X-Forwarded-For are throttled after 5 (the proxy-appended address counts)', { timeout: 60_000 }, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i += 1) {
      // The attacker writes a new address each time; the proxy (our peer) appends the real one.
      const res = await login(`198.18.${i}.${i + 1}, 203.0.113.7`);
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    // Another client behind the same proxy has its own budget.
    expect((await login('203.0.113.8')).status).toBe(401);
  });

  it('a temporary image URL uses the listener, not the Host or X-Forwarded-Host the client sent', async () => {
    const { port } = new URL(gw.url);
    const body = JSON.stringify({ model: 'mock/image', prompt: 'a kite', size: '16x16', response_format: 'url' });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: Number(port), path: '/v1/images/generations', method: 'POST', headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status, answer.text).toBe(200);
    const url = new URL((JSON.parse(answer.text) as { data: Array<{ url: string }> }).data[0].url);
    expect(url.origin).toBe(gw.url);
    expect((await fetch(`${gw.url}${url.pathname}`)).status).toBe(200);
  });
});
