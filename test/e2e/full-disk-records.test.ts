/**
 * The routes that write records but are not billed (file uploads, conversations and their
 * items, batches), on a data dir that is full: each answers the spec's 503 service_unavailable
 * naming storage, with retry_after (a client retries a 503, not a 500), /health says so, and
 * once space returns the same requests work. Before, an upload or a new conversation on a
 * full disk answered 500 internal_error "An unexpected error occurred.", which clients do not
 * retry and which hid the cause. The data dir is on a small tmpfs mounted here (CI runs as root).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fillUntilFull } from '../helpers/fill-until-full.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const mountPoint = tempDir('gw-fullrec-mnt-');
let mounted = false;
let gw: SpawnedGateway | undefined;

afterAll(async () => {
  await gw?.kill();
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
});

interface Answer {
  status: number;
  body: { id?: string; error?: { code: string; message: string; type: string; retry_after?: number } };
}

describe('records on a full disk (real CLI, data dir on a small tmpfs)', () => {
  it('uploads, conversations, items and batches answer 503 naming storage while full, and work once space returns', async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
    mounted = true;
    gw = await spawnGateway({ dataDir: path.join(mountPoint, 'data') });
    const auth = { authorization: `Bearer ${gw.key!}` };
    const send = async (route: string, body: unknown): Promise<Answer> => {
      const init: RequestInit =
        body instanceof FormData ? { method: 'POST', headers: auth, body } : { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) };
      const res = await fetch(`${gw!.url}/v1/${route}`, init);
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    };
    const line = JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: 'x' }] } });
    const upload = () => {
      const form = new FormData();
      form.set('purpose', 'batch');
      form.set('file', new File([`${line}\n`], 'in.jsonl'));
      return send('files', form);
    };
    const conversation = () => send('conversations', { items: [{ type: 'message', role: 'user', content: 'one' }] });

    // Made while there is room: a conversation to add to, an input file for a batch.
    const conv = await conversation();
    const input = await upload();
    expect([conv.status, input.status]).toEqual([200, 200]);
    const requests: Array<[string, () => Promise<Answer>]> = [
      ['upload', upload],
      ['new conversation', conversation],
      ['items', () => send(`conversations/${conv.body.id}/items`, { items: [{ type: 'message', role: 'user', content: 'x'.repeat(64 * 1024) }] })],
      ['batch', () => send('batches', { input_file_id: input.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' })],
    ];

    fillUntilFull(path.join(mountPoint, 'filler'));
    for (const [what, request] of requests) {
      const answer = await request();
      expect({ what, status: answer.status, code: answer.body.error?.code, type: answer.body.error?.type }).toEqual({ what, status: 503, code: 'service_unavailable', type: 'api_error' });
      expect(answer.body.error!.message).toMatch(/^Storage is unavailable: .*\(ENOSPC/);
      expect(answer.body.error!.retry_after).toBeGreaterThan(0);
    }
    const health = await fetch(`${gw.url}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { storage: { writable: boolean; error: string } }).storage).toMatchObject({ writable: false, error: expect.stringContaining('ENOSPC') });

    fs.rmSync(path.join(mountPoint, 'filler'));
    await expect.poll(async () => (await fetch(`${gw!.url}/health`)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    for (const [what, request] of requests) expect({ what, status: (await request()).status }).toEqual({ what, status: 200 });
    // A batch refused while full was not made: it neither shows up nor runs (and bills) later, when db.json can be written again.
    const batches = (await (await fetch(`${gw.url}/v1/batches`, { headers: auth })).json()) as { data: unknown[] };
    expect(batches.data).toHaveLength(1);
    expect(String(gw.stderr())).not.toContain('unhandled error');
    expect(await gw.stop()).toBe(0);
    gw = undefined;
  }, 60_000);

  it('a start on a full disk fails with one line naming the file it could not write, and leaves no side file behind', async () => {
    if (!mounted) execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
    mounted = true;
    const configFile = writeConfig(tempDir('gw-fullrec-'), { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(mountPoint, 'fresh');
    fillUntilFull(path.join(mountPoint, 'filler'));
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await runCli(['--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0']);
        expect(result.exitCode).toBe(1);
        const lines = String(result.stderr).split('\n').filter((l) => l.trim());
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^gateway: cannot serve: .*ENOSPC/);
        expect(lines[0]).toContain(dataDir);
      }
      // Whatever a failed start made, no half-made side file stays behind (each restart of a process manager would add one).
      expect(fs.readdirSync(dataDir).filter((n) => /\.\d+\.[0-9a-f]+$|\.tmp/.test(n))).toEqual([]);
    } finally {
      fs.rmSync(path.join(mountPoint, 'filler'));
    }
  }, 60_000);

  it('a key or an account created while full is not made: the CLI says so, and neither shows up nor comes back once space returns', async () => {
    if (!mounted) execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
    mounted = true;
    gw = await spawnGateway({ dataDir: path.join(mountPoint, 'admin') });
    const cli = (args: string[]) => runCli(['--config', gw!.configFile, '--data-dir', gw!.dataDir, ...args]);
    const names = async () => (JSON.parse(String((await cli(['keys', 'ls', '--json'])).stdout)) as Array<{ name: string }>).map((k) => k.name);
    const emails = async () => (JSON.parse(String((await cli(['accounts', 'ls', '--json'])).stdout)) as Array<{ email: string }>).map((a) => a.email);

    fillUntilFull(path.join(mountPoint, 'filler'));
    try {
      const key = await cli(['keys', 'create', '--name', 'made-while-full', '--json']);
      expect(key.exitCode).not.toBe(0);
      expect(String(key.stderr)).toMatch(/ENOSPC.*the key was not created/);
      const account = await cli(['accounts', 'create', '--email', 'full@example.com', '--json']);
      expect(account.exitCode).not.toBe(0);
      expect(String(account.stderr)).toMatch(/ENOSPC.*the account was not created/);
      // Not made, not even in memory: a key nobody got the secret of, an account whose email a retry finds taken.
      expect(await names()).not.toContain('made-while-full');
      expect(await emails()).not.toContain('full@example.com');
    } finally {
      fs.rmSync(path.join(mountPoint, 'filler'));
    }
    await expect.poll(async () => (await fetch(`${gw!.url}/health`)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    // The retry the client makes works, once: no second key of that name, no "email taken".
    expect((await cli(['keys', 'create', '--name', 'made-while-full', '--json'])).exitCode).toBe(0);
    expect((await cli(['accounts', 'create', '--email', 'full@example.com', '--json'])).exitCode).toBe(0);
    expect((await names()).filter((n) => n === 'made-while-full')).toHaveLength(1);
    expect((await emails()).filter((e) => e === 'full@example.com')).toHaveLength(1);
    expect(await gw.stop()).toBe(0);
    const saved = fs.readFileSync(path.join(mountPoint, 'admin', 'db.json'), 'utf8');
    expect(saved.split('made-while-full').length - 1).toBe(1);
    expect(saved.split('full@example.com').length - 1).toBe(1);
    gw = undefined;
  }, 60_000);
});
