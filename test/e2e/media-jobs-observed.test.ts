import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

interface LiveRow {
  route: string;
  model: string | null;
  provider: string | null;
  status: number;
}

// A job's submission is a request for a model like an image's: the live view (`gateway status`, the TUI's
// Overview), the request log and the metrics name the model it asked for and the provider that took it.
describe('media jobs in the live view and the request log', () => {
  const dir = tempDir('gw-jobs-observed-');
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', jobDelayMs: 60_000 } }, logging: { requests: 'logs/requests.jsonl' } });
  const dataDir = path.join(dir, 'data');
  let gw: SpawnedGateway;
  const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);

  beforeAll(async () => {
    gw = await spawnGateway({ configFile, dataDir });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('names mock/video and mock for POST /v1/videos and a Media Library job', { timeout: 60_000 }, async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    await openai.videos.create({ model: 'mock/video', prompt: 'a wave' });
    const password = await cli('accounts', 'set', 'local@localhost', '--password', 'a long one');
    expect(password.exitCode, String(password.stderr)).toBe(0);
    const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'local@localhost', password: 'a long one' }) });
    const { token } = (await login.json()) as { token: string };
    const library = await fetch(`${gw.url}/v1/media/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ media_type: 'music', model: 'mock/music', prompt: 'a tune' }),
    });
    expect(library.status).toBe(201);

    const status = await cli('status', '--json');
    expect(status.exitCode, String(status.stderr)).toBe(0);
    const live = JSON.parse(String(status.stdout)) as { latest: LiveRow[]; top_models: Array<{ model: string; requests: number }> };
    const row = (route: string) => live.latest.find((r) => r.route === route && r.status < 300);
    expect(row('/v1/videos')).toMatchObject({ model: 'mock/video', provider: 'mock' });
    expect(row('/v1/media/generations')).toMatchObject({ model: 'mock/music', provider: 'mock' });
    expect(live.top_models).toEqual(expect.arrayContaining([{ model: 'mock/video', requests: 1 }, { model: 'mock/music', requests: 1 }]));

    expect(await gw.stop()).toBe(0); // flushes the log
    const lines = fs.readFileSync(path.join(dir, 'logs/requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.route === '/v1/videos')).toMatchObject({ model: 'mock/video', resolved_model: 'mock/video', provider: 'mock', status: 200 });
    expect(lines.find((l) => l.route === '/v1/media/generations' && l.status === 201)).toMatchObject({ model: 'mock/music', provider: 'mock' });
  });
});
