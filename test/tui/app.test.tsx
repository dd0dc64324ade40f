import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { account, apiKey, fakeAdminApi, media } from './fake-admin-api.ts';
import { KEYS, renderWithAdmin, settle } from './render-with-admin.tsx';

afterEach(() => cleanup());

describe('admin TUI: tabs and screens', () => {
  it('opens on the overview: mode, data dir, counts and usage totals', async () => {
    const api = fakeAdminApi({ accounts: [account('a@x.test', { credits: 1500 }), account('b@x.test', { suspended: true })], keys: [apiKey('key_1'), apiKey('key_2', { revoked_at: 1 })] });
    const tui = await renderWithAdmin(api);
    const frame = await tui.waitFor('tokens this month');
    expect(frame).toContain('local');
    expect(frame).toContain('/srv/gateway/data');
    expect(frame).toMatch(/accounts\s+2 \(1 suspended\)/);
    expect(frame).toMatch(/API keys\s+2 \(1 active\)/);
    expect(frame).toMatch(/models\s+1/);
    expect(frame).toMatch(/requests\s+14/);
    expect(frame).toMatch(/credits spent\s+25/);
    expect(frame).toMatch(/tokens this month\s+2,468/);
    expect(frame).toMatch(/searches this month\s+6/);
  });

  it('an older server (no month_web_search_requests in its usage) shows 0 searches, not NaN', async () => {
    const api = fakeAdminApi({ accounts: [account('a@x.test')] });
    const usage = api.usage!.bind(api);
    api.usage = async () => {
      const answer = await usage();
      return { ...answer, accounts: answer.accounts.map(({ month_web_search_requests: _dropped, ...rest }) => rest) } as typeof answer;
    };
    const tui = await renderWithAdmin(api);
    const frame = await tui.waitFor('searches this month');
    expect(frame).toMatch(/searches this month\s+0/);
    expect(frame).not.toContain('NaN');
  });

  // Before, `gateway tui` in the wrong folder made a data dir there and showed its empty records without a word.
  it('says when it made the data dir it shows (there was none)', async () => {
    const made = await renderWithAdmin(fakeAdminApi(), { connection: { mode: 'local', dataDir: '/tmp/elsewhere/.gateway', newDataDir: true } });
    expect((await made.waitFor('tokens this month')).replace(/\s+/g, ' ')).toContain('/tmp/elsewhere/.gateway (new: there was none here, so this made it; a gateway serving another data dir does not see it)');
    const there = await renderWithAdmin(fakeAdminApi(), { connection: { mode: 'local', dataDir: '/srv/gateway/data' } });
    expect(await there.waitFor('tokens this month')).not.toContain('new: there was none');
  });

  it('shows the server URL in server mode', async () => {
    const tui = await renderWithAdmin(fakeAdminApi(), { connection: { mode: 'server', url: 'http://127.0.0.1:8787', dataDir: '/d' } });
    expect(await tui.waitFor('http://127.0.0.1:8787')).toMatch(/mode\s+server http:\/\/127\.0\.0\.1:8787/);
  });

  it("the header keeps the mode when the data dir is longer than the line: the path's start gives way", async () => {
    const dataDir = `/srv/${'deeply-nested-folder/'.repeat(5)}gateway/.gateway`;
    const tui = await renderWithAdmin(fakeAdminApi(), { connection: { mode: 'local', dataDir } });
    const header = (await tui.waitFor('tokens this month')).split('\n')[0];
    expect(header).toMatch(/^gateway admin\s+local …/);
    expect(header).toMatch(/folder\/gateway\/\.gateway$/);
    // A short one stays beside its mode, at the right.
    const short = await renderWithAdmin(fakeAdminApi(), { connection: { mode: 'server', url: 'http://127.0.0.1:8787', dataDir: '/d' } });
    expect((await short.waitFor('tokens this month')).split('\n')[0]).toMatch(/^gateway admin {20,}server http:\/\/127\.0\.0\.1:8787$/);
  });

  it('switches tabs with number keys and left/right, wrapping around', async () => {
    const api = fakeAdminApi({ keys: [apiKey('key_abc', { name: 'ci-key' })], media: [media('gen_1')] });
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    expect(await tui.waitFor('Accounts (1)')).toContain('local@localhost');
    await tui.press(KEYS.right);
    const keys = await tui.waitFor('API keys (1)');
    expect(keys).toContain('ci-key');
    expect(keys).toMatch(/ID\s+NAME\s+ACCOUNT\s+RPM\s+LIMIT\s+SCOPE\s+EXPIRES\s+CREATED\s+LAST USED\s+STATUS/);
    await tui.press('4');
    const models = await tui.waitFor('Models (1)');
    expect(models).toMatch(/mock\/echo\s+chat\s+mock\s+chat\s+text->text\s+tools/);
    await tui.press('5');
    await tui.waitFor(/gen_1\s+image\s+completed\s+mock\/image/);
    await tui.press(KEYS.right);
    await tui.waitFor('Batches (none');
    await tui.press(KEYS.right);
    await tui.waitFor('Connection');
    await tui.press(KEYS.left);
    await tui.waitFor('Batches (none');
  });

  it('the Models tab says what a media model is (its modality), not the chat format it does not speak', async () => {
    const api = fakeAdminApi({
      models: [
        { id: 'mock/echo', type: 'chat', provider: 'mock', formats: ['chat'], modality: 'text+image+file->text', capabilities: ['streaming'] },
        { id: 'mock/image', type: 'image_generation', provider: 'mock', formats: ['chat'], modality: 'text+image->image', capabilities: ['image_edit'] },
        { id: 'mock/video', type: 'video_generation', provider: 'mock', formats: ['chat'], modality: 'text+image->video', capabilities: [] },
      ],
    });
    const tui = await renderWithAdmin(api);
    await tui.press('4');
    const frame = await tui.waitFor('Models (3)');
    expect(frame).toMatch(/ID\s+TYPE\s+PROVIDER\s+FORMATS\s+MODALITY\s+CAPABILITIES/);
    expect(frame).toMatch(/mock\/echo\s+chat\s+mock\s+chat\s+text\+image\+file->text\s+streaming/);
    expect(frame).toMatch(/mock\/image\s+image_generation\s+mock\s+-\s+text\+image->image\s+image_edit/);
    expect(frame).toMatch(/mock\/video\s+video_generation\s+mock\s+-\s+text\+image->video\s+-/);
  });

  it('leaves the Media and Batches tabs out when the gateway has no such procedures', async () => {
    const tui = await renderWithAdmin(fakeAdminApi({}, { media: false, batches: false }));
    const frame = await tui.waitFor('Overview');
    expect(frame).toContain('4 Models');
    expect(frame).not.toContain('Media');
    expect(frame).not.toContain('Batches');
    await tui.press('5');
    expect(tui.frame()).toContain('Connection');
  });

  it('reloads the current tab on r', async () => {
    const api = fakeAdminApi();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (0)');
    api.data.keys.push(apiKey('key_late', { name: 'late' }));
    await tui.press('r');
    expect(await tui.waitFor('API keys (1)')).toContain('late');
  });

  it('reloads by itself every refreshMs in server mode, not in local mode', async () => {
    const server = fakeAdminApi();
    const tui = await renderWithAdmin(server, { connection: { mode: 'server', url: 'http://x', dataDir: '/d' }, refreshMs: 40 });
    // Waited for, not timed: a loaded machine runs the 40 ms timer late.
    await vi.waitFor(() => expect(server.calls.filter((c) => c === 'accounts.list').length).toBeGreaterThan(2), { timeout: 5000 });
    tui.unmount();
    const local = fakeAdminApi();
    await renderWithAdmin(local, { refreshMs: 40 });
    await settle(200);
    expect(local.calls.filter((c) => c === 'accounts.list')).toHaveLength(1);
  });

  it('auto-refresh spares the usage totals (a ledger scan on the server); r reloads them', async () => {
    const api = fakeAdminApi();
    const tui = await renderWithAdmin(api, { connection: { mode: 'server', url: 'http://x', dataDir: '/d' }, refreshMs: 40 });
    await vi.waitFor(() => expect(api.calls.filter((c) => c === 'accounts.list').length).toBeGreaterThan(2), { timeout: 5000 });
    expect(api.calls.filter((c) => c === 'billing.usage')).toHaveLength(1);
    await tui.press('r');
    await vi.waitFor(() => expect(api.calls.filter((c) => c === 'billing.usage')).toHaveLength(2));
  });

  it('moves the selection with the arrow keys and scrolls long tables', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => apiKey(`key_${String(i).padStart(2, '0')}`, { name: `k${i}` }));
    const tui = await renderWithAdmin(fakeAdminApi({ keys }));
    await tui.press('3');
    expect(await tui.waitFor('rows 1–')).toMatch(/› key_00/);
    await tui.press(KEYS.down, KEYS.down);
    await tui.waitFor(/› key_02/);
    await tui.press('G');
    const bottom = await tui.waitFor(/› key_39/);
    expect(bottom).not.toContain('key_00');
    expect(bottom).toMatch(/rows \d+–40 of 40/);
  });

  it('replays keys that arrive in one chunk one at a time', async () => {
    const keys = Array.from({ length: 5 }, (_, i) => apiKey(`key_${i}`, { name: `k${i}` }));
    const tui = await renderWithAdmin(fakeAdminApi({ keys }));
    await tui.press('3');
    await tui.waitFor('API keys (5)');
    await tui.press('jjj');
    expect(await tui.waitFor(/› key_3/)).toBeTruthy();
    await tui.press('kx');
    expect(await tui.waitFor('Revoke key key_2 (k2)?')).toBeTruthy();
  });

  it('shows a failed load in the status line and keeps running', async () => {
    const api = fakeAdminApi();
    api.failures.set('models.list', 'provider mock: plugin failed to load');
    const tui = await renderWithAdmin(api);
    await tui.press('4');
    expect(await tui.waitFor('✗')).toContain('models: provider mock: plugin failed to load');
    api.failures.clear();
    await tui.press('r');
    const frame = await tui.waitFor('Models (1)');
    expect(frame).not.toContain('✗');
    await tui.press('1');
    expect(await tui.waitFor('Connection')).toContain('1-6 or ←/→ tabs');
  });

  it('keeps a screen that fails to render inside its tab', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const api = fakeAdminApi();
    // A gateway answering with a shape the screen does not expect (formats missing).
    api.listModels = async () => [{ id: 'odd/model', type: 'chat', provider: 'odd' } as never];
    const tui = await renderWithAdmin(api);
    await tui.press('4');
    expect(await tui.waitFor('This screen failed')).toContain('4 Models');
    await tui.press('2');
    expect(await tui.waitFor('Accounts (1)')).not.toContain('This screen failed');
    quiet.mockRestore();
  });
});
