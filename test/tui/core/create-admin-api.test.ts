import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAdmin, type AdminConnection } from '../../../src/cli/admin-client.ts';
import { parseConfig } from '../../../src/config/index.ts';
import { createAdminApi, type TuiAdminApi } from '../../../src/tui/core/index.ts';

// The adapter against the real admin procedures, in-process over a fresh data dir (the
// `local` mode of connectAdmin): proves the router still has the shapes the TUI reads.
describe('createAdminApi over the real admin router', () => {
  let connection: AdminConnection;
  let api: TuiAdminApi;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-tui-'));

  beforeAll(async () => {
    const config = parseConfig({ providers: { mock: { plugin: 'mock' } } });
    connection = await connectAdmin({ config, dataDir, configDir: process.cwd(), command: 'gateway tui' });
    api = createAdminApi(connection.client);
  });
  afterAll(async () => {
    await connection?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs locally, holding the data dir', () => {
    expect(connection.mode).toBe('local');
  });

  it('creates, credits, suspends and lists accounts', async () => {
    await api.createAccount!({ email: 'ann@x.test' });
    expect((await api.addCredits!({ email: 'ann@x.test', add: 42 })).credits).toBe(42);
    expect((await api.setSuspended!({ email: 'ann@x.test', suspended: true })).suspended).toBe(true);
    const accounts = await api.listAccounts();
    expect(accounts).toEqual([expect.objectContaining({ email: 'ann@x.test', tier: 'free', credits: 42, suspended: true, monthly_token_quota: null })]);
  });

  it('creates a key (secret once), lists it by preview and revokes it', async () => {
    const created = await api.createKey({ name: 'tui', account: 'ann@x.test' });
    expect(created.key).toMatch(/^sk-gw-/);
    expect(created).toMatchObject({ name: 'tui', account: 'ann@x.test', revoked_at: null });
    const listed = await api.listKeys();
    expect(listed).toEqual([expect.objectContaining({ id: created.id, preview: created.preview })]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect((await api.revokeKey({ id: created.id })).revoked_at).not.toBeNull();
  });

  it('reads models, usage and media', async () => {
    const models = await api.listModels();
    expect(models).toContainEqual(expect.objectContaining({ id: 'mock/echo', type: 'chat', provider: 'mock', formats: expect.arrayContaining(['chat']) }));
    expect(models).toContainEqual(expect.objectContaining({ id: 'mock/image', type: 'image_generation', modality: 'text+image->image', capabilities: ['image_edit'], formats: [] }));
    const usage = await api.usage!();
    expect(usage.accounts).toEqual([expect.objectContaining({ email: 'ann@x.test', requests: 0, spent_credits: 0 })]);
    expect(await api.listMedia!({ page: 1, pageSize: 5 })).toEqual({ data: [], total: 0 });
  });

  it('lists batches and passes a cancel of an unknown batch back as its error', async () => {
    expect(await api.listBatches!({ limit: 5, status: ['in_progress'] })).toEqual({ data: [], has_more: false });
    await expect(api.cancelBatch!({ id: 'batch_nope' })).rejects.toThrow("No batch with id 'batch_nope'.");
  });

  it('passes procedure errors through with their message', async () => {
    await expect(api.addCredits!({ email: 'nobody@x.test', add: 1 })).rejects.toThrow('No account with email nobody@x.test.');
  });
});
