import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInPty } from '../helpers/run-in-pty.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

interface CliEnvelope {
  data: Array<{ id: string; media_type: string; status: string; model: string; prompt: string | null; account: string }>;
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

describe('gateway media ls | show | rm', () => {
  const dir = tempDir('gw-media-cli-');
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
  const dataDir = path.join(dir, 'data');
  const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, 'media', ...args]);
  let gw: SpawnedGateway;
  let token = '';
  const ids: Record<string, string> = {};
  const post = async (body: Record<string, unknown>) => {
    const res = await fetch(`${gw.url}/v1/media/generations`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return ((await res.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    for (const email of ['maker@example.test', 'idle@example.test']) {
      const created = await runCli(['--config', configFile, '--data-dir', dataDir, 'accounts', 'create', '--email', email, '--password', 'correct horse']);
      expect(created.exitCode, String(created.stderr)).toBe(0);
    }
    gw = await spawnGateway({ configFile, dataDir });
    const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'maker@example.test', password: 'correct horse' }) });
    ({ token } = (await login.json()) as { token: string });
    ids.image = await post({ media_type: 'image', model: 'flux-pro', prompt: 'A very long prompt about a lighthouse standing on a cliff above a stormy sea at night' });
    ids.video = await post({ media_type: 'video', model: 'veo-3', prompt: 'surfers' });
    ids.music = await post({ media_type: 'music', model: 'suno-v4' });
    ids.threed = await post({ media_type: 'threed', model: 'meshy-5', prompt: 'a teapot' });
    await fetch(`${gw.url}/v1/media/generations/${ids.video}`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'completed' }) });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('fits an 80-column terminal: the prompt cut with an ellipsis, the ids whole, the columns left out named; a pipe gets them all', async () => {
    const pty = runInPty(['--config', configFile, '--data-dir', dataDir, 'media', 'ls'], { size: { columns: 80, rows: 50 } });
    const done = await pty.child;
    expect(done.exitCode, pty.screen()).toBe(0);
    const lines = pty.screen().split(/\r?\n/).filter((line) => line.trim() !== '');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STATUS\s+MODEL\s+PROMPT/);
    expect(lines.some((line) => line.startsWith(`${ids.image}  image`) && line.includes('A very') && line.includes('…'))).toBe(true);
    expect(lines).toContain('(ACCOUNT left out to fit the terminal: --json shows every field)');
    const piped = String((await cli('ls')).stdout);
    expect(piped.split('\n')[0]).toMatch(/AGE\s+ACCOUNT$/);
    expect(piped).toContain('maker@example.test');
  }, 60_000);

  it('prints a table of every type, newest first, through the running server', async () => {
    const result = await cli('ls');
    expect(result.exitCode, String(result.stderr)).toBe(0);
    const lines = String(result.stdout).split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STATUS\s+MODEL\s+PROMPT\s+AGE\s+ACCOUNT$/);
    const rows = lines.slice(1, 5);
    expect(rows.map((l) => l.split(/\s{2,}/)[1])).toEqual(['threed', 'music', 'video', 'image']);
    expect(rows[0]).toContain(ids.threed);
    expect(rows[1]).toMatch(/suno-v4\s+-\s+\d+s/); // no prompt
    expect(rows[2]).toMatch(/completed\s+veo-3/);
    expect(rows[3]).toContain('A very long prompt about a lighthouse s…');
    expect(rows[3]).toContain('maker@example.test');
    expect(String(result.stdout)).toContain('1-4 of 4');
  });

  it('prints the list envelope as JSON and filters by type, status, account and page', async () => {
    const all = JSON.parse(String((await cli('ls', '--json')).stdout)) as CliEnvelope;
    expect(all).toMatchObject({ total: 4, page: 1, page_size: 20, has_more: false });
    expect(all.data.map((r) => r.media_type).sort()).toEqual(['image', 'music', 'threed', 'video']);
    const video = JSON.parse(String((await cli('ls', '--type', 'video', '--json')).stdout)) as CliEnvelope;
    expect(video.data.map((r) => r.id)).toEqual([ids.video]);
    const completed = JSON.parse(String((await cli('ls', '--status', 'completed', '--json')).stdout)) as CliEnvelope;
    expect(completed.data.map((r) => r.id)).toEqual([ids.video]);
    const page2 = JSON.parse(String((await cli('ls', '--page', '2', '--page-size', '3', '--json')).stdout)) as CliEnvelope;
    expect(page2).toMatchObject({ total: 4, page: 2, page_size: 3, has_more: false });
    expect(page2.data.map((r) => r.id)).toEqual([ids.image]);
    const mine = JSON.parse(String((await cli('ls', '--account', 'maker@example.test', '--json')).stdout)) as CliEnvelope;
    expect(mine.total).toBe(4);
    const nobody = JSON.parse(String((await cli('ls', '--account', 'idle@example.test', '--json')).stdout)) as CliEnvelope;
    expect(nobody.total).toBe(0);
  });

  it('fails clearly on bad options and unknown accounts', async () => {
    const badType = await cli('ls', '--type', 'gif');
    expect(badType.exitCode).not.toBe(0);
    expect(String(badType.stderr)).toContain('Allowed choices are image, video, music, threed');
    const badSize = await cli('ls', '--page-size', '101');
    expect(badSize.exitCode).not.toBe(0);
    expect(String(badSize.stderr)).toContain('--page-size must be an integer 1-100');
    const unknown = await cli('ls', '--account', 'ghost@example.test');
    expect(unknown.exitCode).toBe(1);
    expect(String(unknown.stderr)).toContain('No account with email ghost@example.test');
  });

  it('shows and removes one record', async () => {
    const shown = await cli('show', ids.threed);
    expect(shown.exitCode).toBe(0);
    expect(String(shown.stdout)).toMatch(/^id\s+[0-9a-f-]{36}$/m);
    expect(String(shown.stdout)).toMatch(/^media_type\s+threed$/m);
    expect(String(shown.stdout)).toMatch(/^account\s+maker@example\.test$/m);
    // Times read as the listings write them, not as Unix seconds (created_at 1796037999 before); --json keeps the number.
    expect(String(shown.stdout)).toMatch(/^created_at\s+20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    const json = JSON.parse(String((await cli('show', ids.music, '--json')).stdout)) as Record<string, unknown>;
    expect(json).toMatchObject({ id: ids.music, media_type: 'music', model: 'suno-v4', prompt: null });
    expect(json.created_at).toEqual(expect.any(Number));
    const removed = await cli('rm', ids.music);
    expect(removed.exitCode).toBe(0);
    expect(String(removed.stdout)).toContain(`Deleted media generation ${ids.music}.`);
    const again = await cli('show', ids.music);
    expect(again.exitCode).toBe(1);
    expect(String(again.stderr)).toContain(`No media generation with id '${ids.music}'`);
  });

  it('never writes a client\'s control characters to the terminal, and cuts a prompt between characters', async () => {
    // Any dashboard user (or API key, through an image prompt) writes these fields; the operator's terminal reads them.
    const id = await post({ media_type: 'image', model: 'm\u001b[2J\u001b[Hx', prompt: '\u001b]0;owned\u0007\u001b[31mred\u009b31m\u202eevil\r\n' + '😀'.repeat(45) });
    try {
      for (const args of [['ls'], ['show', id]]) {
        const out = String((await cli(...args)).stdout);
        expect(out).toContain(id);
        expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
        expect(out).toContain('red');
      }
      const row = String((await cli('ls')).stdout).split('\n').find((l) => l.includes(id))!;
      expect(row).toContain('😀…');
    } finally {
      await fetch(`${gw.url}/v1/media/generations/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    }
  });

  it('works the same without a running server (the CLI takes the data dir itself)', async () => {
    await gw.stop();
    const table = await cli('ls');
    expect(table.exitCode, String(table.stderr)).toBe(0);
    expect(String(table.stdout)).toContain(ids.threed);
    expect(String(table.stdout)).toContain('1-3 of 3');
    const json = JSON.parse(String((await cli('ls', '--type', 'image', '--json')).stdout)) as CliEnvelope;
    expect(json.data.map((r) => r.id)).toEqual([ids.image]);
    expect((await cli('rm', ids.threed, '--json')).exitCode).toBe(0);
    const after = JSON.parse(String((await cli('ls', '--json')).stdout)) as CliEnvelope;
    expect(after.data.map((r) => r.media_type).sort()).toEqual(['image', 'video']);
  });
});
