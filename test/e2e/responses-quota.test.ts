import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';
import { REPO_ROOT, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/matrix/responses');

async function failure(promise: Promise<unknown>): Promise<{ status?: number; code?: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return { status: (error as { status?: number }).status, code: (error as { code?: string }).code };
  }
}

// Issue 27 §5: a per-account quota for stored Responses (storage.responsesQuotaBytes).
for (const backend of ['file', 'postgres'] as const) {
  describe(`stored Responses quota per account (${backend})`, () => {
    let fake: FakeUpstream;
    let gw: SpawnedGateway;
    let dropDb: (() => Promise<void>) | undefined;
    let configFile: string;
    let dataDir: string;

    beforeAll(async () => {
      const json = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'text.json'), 'utf8')) as Record<string, unknown>;
      fake = await startFakeUpstream(() => ({ json }));
      let store: Record<string, unknown> | undefined;
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        dropDb = db.drop;
        store = { postgres: db.url };
      }
      const dir = tempDir();
      dataDir = path.join(dir, 'data');
      configFile = writeConfig(dir, {
        providers: { r: { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'up-key', formats: ['responses'], models: ['gpt-resp'] } },
        ...(store ? { store } : {}),
        // Room for one stored record and a bit: the second one passes it.
        storage: { responsesQuotaBytes: 1_500 },
      });
      gw = await spawnGateway({ configFile, dataDir });
    }, 60_000);
    afterAll(async () => {
      await gw?.stop();
      await fake?.close();
      await dropDb?.();
    });

    it('a stored request past the quota is 429 quota_exceeded before any upstream call; store: false, a delete and a restart behave', { timeout: 120_000 }, async () => {
      const key = gw.key;
      const client = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0, timeout: 10_000 });
      const ask = (store?: boolean) => client().responses.create({ model: 'gpt-resp', input: 'Say hi.', ...(store === undefined ? {} : { store }) });
      const first = await ask();
      const second = await ask();
      expect(fake.requests).toHaveLength(2);
      const refused = await failure(ask());
      expect(refused).toEqual({ status: 429, code: 'quota_exceeded' });
      expect(fake.requests).toHaveLength(2); // refused before the upstream
      // The raw envelope names the bound.
      const raw = await fetch(`${gw.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-resp', input: 'Say hi.' }),
      });
      expect(raw.status).toBe(429);
      const body = (await raw.json()) as { error: { code: string; type: string; message: string } };
      expect(body.error).toMatchObject({ code: 'quota_exceeded', type: 'insufficient_quota' });
      expect(body.error.message).toContain('storage.responsesQuotaBytes');
      // Not stored, so not bounded by it.
      expect((await ask(false)).output.length).toBeGreaterThan(0);
      expect(fake.requests).toHaveLength(3);

      // The figure survives a restart.
      await gw.stop();
      gw = await spawnGateway({ configFile, dataDir });
      expect(await failure(ask())).toEqual({ status: 429, code: 'quota_exceeded' });
      expect(fake.requests).toHaveLength(3);

      // Deleting makes room again.
      await client().responses.delete(first.id);
      await client().responses.delete(second.id);
      const third = await ask();
      expect((await client().responses.retrieve(third.id)).id).toBe(third.id);
      expect(fake.requests).toHaveLength(4);
    });
  });
}

// Conversations count in the same quota: a conversation of 100 MB each, without end, was not bounded per account.
for (const backend of ['file', 'postgres'] as const) {
  describe(`conversations count in the stored Responses quota (${backend})`, () => {
    let fake: FakeUpstream;
    let gw: SpawnedGateway;
    let dropDb: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const json = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'text.json'), 'utf8')) as Record<string, unknown>;
      fake = await startFakeUpstream(() => ({ json }));
      let store: Record<string, unknown> | undefined;
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        dropDb = db.drop;
        store = { postgres: db.url };
      }
      const dir = tempDir();
      const configFile = writeConfig(dir, {
        providers: { r: { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'up-key', formats: ['responses'], models: ['gpt-resp'] } },
        ...(store ? { store } : {}),
        storage: { responsesQuotaBytes: 1_500 },
      });
      gw = await spawnGateway({ configFile, dataDir: path.join(dir, 'data') });
    }, 60_000);
    afterAll(async () => {
      await gw?.stop();
      await fake?.close();
      await dropDb?.();
    });

    it('past the quota a new conversation, new items and a response naming one (store: false too) are 429 before any upstream call; a delete makes room', async () => {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
      const big = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'x'.repeat(2_000) }] });
      expect(await failure(client.conversations.create({}))).toEqual({ status: 429, code: 'quota_exceeded' });
      expect(await failure(client.conversations.items.create(big.id, { items: [{ type: 'message', role: 'user', content: 'more' }] }))).toEqual({ status: 429, code: 'quota_exceeded' });
      expect(await failure(client.responses.create({ model: 'gpt-resp', input: 'Say hi.', conversation: big.id, store: false }))).toEqual({ status: 429, code: 'quota_exceeded' });
      expect(await failure(client.responses.create({ model: 'gpt-resp', input: 'Say hi.' }))).toEqual({ status: 429, code: 'quota_exceeded' });
      expect(fake.requests).toHaveLength(0);
      // Not stored and no conversation: not bounded by it.
      expect((await client.responses.create({ model: 'gpt-resp', input: 'Say hi.', store: false })).output.length).toBeGreaterThan(0);
      await client.conversations.delete(big.id);
      const next = await client.conversations.create({});
      await client.responses.create({ model: 'gpt-resp', input: 'Say hi.', conversation: next.id });
      expect((await client.conversations.items.list(next.id)).data).toHaveLength(2);
    });
  });
}
