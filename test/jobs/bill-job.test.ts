import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/admin/accounts.ts';
import { createGateway, type Gateway } from '../../src/app/create-gateway.ts';
import { parseConfig } from '../../src/config/index.ts';
import type { MediaRecord } from '../../src/store/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { REPO_ROOT, tempDir } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

type Job = { status: string; billed: boolean };

describe('a job is charged for what the provider made, whatever a client PATCHed since', () => {
  let gateway: Gateway;
  let token: string;
  const send = async (method: string, route: string, body?: unknown) =>
    gateway.app.request(route, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  beforeAll(async () => {
    const config = parseConfig({ providers: { mock: { plugin: 'mock', jobDelayMs: 200 } }, media: { jobs: { pollIntervalMs: 50 } } });
    gateway = await createGateway({ config, configDir: REPO_ROOT, dataDir: path.join(tempDir(), 'data'), log: createLogger('error', () => undefined) });
    await createAccount(gateway.deps.store, gateway.deps.clock, { email: 'patcher@example.test', password: 'correct horse', credits: 100_000 });
    const login = await gateway.app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'patcher@example.test', password: 'correct horse' }) });
    token = ((await login.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("a PATCH of duration_seconds between the job's end and its charge does not change the charge", async () => {
    const media = gateway.deps.store.media;
    const read = media.get.bind(media);
    let patching: Promise<Response> | undefined;
    // The runner reads the ended job again before it bills it: the client's PATCH lands right then.
    media.get = async (id: string): Promise<MediaRecord | undefined> => {
      const record = await read(id);
      const job = record?.job?.state as Job | undefined;
      if (patching || job?.status !== 'completed' || job.billed) return record;
      patching = send('PATCH', `/v1/media/generations/${id}`, { duration_seconds: 500 });
      await patching;
      return read(id);
    };
    try {
      const created = await send('POST', '/v1/media/generations', { media_type: 'video', model: 'mock/video', prompt: 'a wave at dusk', parameters: { seconds: 4 } });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const billed = await until('the job to be billed', async () => {
        const record = await read(id);
        return (record?.job?.state as Job | undefined)?.billed ? record : undefined;
      });
      expect((await patching)?.status).toBe(200);
      expect(billed!.duration_seconds).toBe(500);
      // The mock made one second at $0.10/s: 100 credits, not 500 s' 50,000.
      expect(billed!.cost_credits).toBe(100);
      const account = await gateway.deps.store.accounts.findByEmail('patcher@example.test');
      expect(account!.credits).toBe(100_000 - 100);
    } finally {
      media.get = read;
    }
  });
});
