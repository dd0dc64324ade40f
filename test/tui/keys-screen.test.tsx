import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { connectAdmin } from '../../src/cli/admin-client.ts';
import { parseConfig } from '../../src/config/index.ts';
import { createAdminApi } from '../../src/tui/core/index.ts';
import { account, apiKey, fakeAdminApi } from './fake-admin-api.ts';
import { KEYS, renderWithAdmin, settle } from './render-with-admin.tsx';

afterEach(() => cleanup());

const type = (text: string) => [...text];

describe('admin TUI: Keys tab', () => {
  it('creates a key from two prompts and shows its secret once', async () => {
    const api = fakeAdminApi({ accounts: [account('local@localhost'), account('ann@x.test')] });
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('No API keys yet');
    await tui.press('n');
    await tui.waitFor('New key: name');
    // q and digits are text inside a prompt, not quit / tab keys.
    await tui.press(...type('q1 deploy'), KEYS.backspace, 'y', KEYS.enter);
    await tui.waitFor('New key "q1 deploy": owner account');
    await tui.press(...type('ann@x.test'), KEYS.enter);
    const shown = await tui.waitFor('Store it now');
    expect(api.calls).toContain('keys.create q1 deploy ann@x.test');
    expect(shown).toContain('sk-gw-SECRET1abcdefghijklmnopqrstuvwxyz0123456789');
    expect(shown).toContain('only time the key is shown');
    expect(shown).toContain('✓ Created key key_new1 (q1 deploy) for ann@x.test.');

    await tui.press(KEYS.enter);
    const after = await tui.waitFor('API keys (1)');
    expect(after).not.toContain('SECRET1abcdefghij');
    expect(after).toMatch(/› key_new1\s+q1 deploy\s+ann@x\.test\s+-\s+-\s+all\s+-\s+2026-01-01\s+never\s+active/);
    expect(after).toContain('key_new1  sk-gw-SEC…6789 · ann@x.test');
    expect(after).toContain('created 2026-01-01 · never used · expires never');
    // Nothing brings the secret back: not a refresh, not another tab and back.
    await tui.press('r', '1');
    await tui.waitFor('Connection');
    await tui.press('3');
    expect(await tui.waitFor('API keys (1)')).not.toContain('SECRET1abcdefghij');
    expect(tui.frames.filter((f) => f.includes('SECRET1abcdefghij')).length).toBeGreaterThan(0);
  });

  it('a key typed the moment the secret appears (after the server answered) reaches it', async () => {
    const tui = await renderWithAdmin(fakeAdminApi());
    await tui.press('3');
    await tui.waitFor('API keys (0)');
    await tui.press('n');
    await tui.waitFor('New key: name');
    await tui.press(KEYS.enter);
    await tui.waitFor('owner account');
    // Ink's own useInput subscribed the new box in a passive effect, after its frame: this Enter was lost.
    tui.typeWhenShown('Store it now', KEYS.enter);
    await tui.press(KEYS.enter);
    expect(await tui.waitFor('API keys (1)')).not.toContain('Store it now');
  });

  it('an empty name and account leave the defaults to the server', async () => {
    const api = fakeAdminApi();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (0)');
    await tui.press('n');
    await tui.waitFor('New key: name');
    await tui.press(KEYS.enter);
    await tui.waitFor('owner account');
    await tui.press(KEYS.enter);
    await tui.waitFor('Store it now');
    expect(api.calls).toContain('keys.create - -');
  });

  it('Esc cancels the create prompts without a call', async () => {
    const api = fakeAdminApi();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (0)');
    await tui.press('n');
    await tui.waitFor('New key: name');
    await tui.press('x', KEYS.escape);
    const frame = await tui.waitFor('n new key');
    expect(frame).not.toContain('New key: name');
    expect(api.calls.some((c) => c.startsWith('keys.create'))).toBe(false);
    // The global keys work again.
    await tui.press('4');
    await tui.waitFor('Models (1)');
  });

  it('revokes the selected key only after y', async () => {
    const api = fakeAdminApi({ keys: [apiKey('key_aaaa', { name: 'first' }), apiKey('key_bbbb', { name: 'second' })] });
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (2)');
    await tui.press(KEYS.down, 'x');
    const asked = await tui.waitFor('Revoke key key_bbbb (second)?');
    expect(asked).toContain('y = yes');
    await tui.press('n');
    await tui.waitFor('x revoke');
    expect(api.calls.some((c) => c.startsWith('keys.revoke'))).toBe(false);

    await tui.press('x');
    await tui.waitFor('Revoke key key_bbbb');
    await tui.press('y');
    await tui.waitFor('✓ Revoked key key_bbbb (second).');
    expect(api.calls).toContain('keys.revoke key_bbbb');
    const done = await tui.waitFor(/key_bbbb\s+second.*revoked/);
    expect(done).toMatch(/key_aaaa\s+first.*active/);
  });

  it('does not ask to revoke a key that is already revoked', async () => {
    const api = fakeAdminApi({ keys: [apiKey('key_gone', { revoked_at: 1 })] });
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (1)');
    await tui.press('x');
    expect(await tui.waitFor('already revoked')).not.toContain('y = yes');
  });

  it('shows a failed revoke in the status line and keeps running', async () => {
    const api = fakeAdminApi({ keys: [apiKey('key_aaaa')] });
    api.failures.set('keys.revoke', 'No API key with id key_aaaa.');
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (1)');
    await tui.press('x', 'y');
    const frame = await tui.waitFor('✗ Revoking key failed: No API key with id key_aaaa.');
    expect(frame).toMatch(/key_aaaa.*active/);
    await tui.press('2');
    await tui.waitFor('Accounts (1)');
  });

  it('a failed create closes the prompt and reports the reason', async () => {
    const api = fakeAdminApi();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (0)');
    await tui.press('n');
    await tui.waitFor('New key: name');
    await tui.press(KEYS.enter);
    await tui.waitFor('owner account');
    await tui.press(...type('nobody@x.test'), KEYS.enter);
    const frame = await tui.waitFor('✗ Creating key failed: No account with email nobody@x.test.');
    expect(frame).not.toContain('Store it now');
    expect(frame).toContain('n new key');
  });
});

describe('admin TUI: Keys tab, settings', () => {
  const three = () =>
    fakeAdminApi({
      accounts: [account('local@localhost'), account('ann@x.test')],
      keys: [
        apiKey('key_aaaa1111', { name: 'first', created_at: 1_767_225_600, last_used_at: Date.UTC(2026, 0, 14, 23, 0) / 1000 }),
        apiKey('key_bbbb2222', { name: 'second', limit: 10, limit_reset: 'monthly', limit_used: 3.5, models: ['mock/*'], endpoints: ['chat', 'images'], expires_at: Date.UTC(2027, 0, 31) / 1000 }),
        apiKey('key_cccc3333', { name: 'third' }),
      ],
    });

  it('shows expiry, created, last used, scope and limit', async () => {
    const tui = await renderWithAdmin(three());
    await tui.press('3');
    const frame = await tui.waitFor('API keys (3)');
    // 100 columns: long cells give way; the lines under the table show the selected key whole.
    expect(frame).toMatch(/ID\s+NAME\s+ACCOUNT\s+RPM\s+LIMIT\s+SCOPE\s+EXPIRES\s+CREATED\s+LAST USED\s+STATUS/);
    expect(frame).toMatch(/key_aaaa1111\s+first\s+local@lo…\s+-\s+-\s+all\s+-\s+2026-01-01\s+1h ago\s+active/);
    expect(frame).toMatch(/key_bbbb2222\s+second\s+local@lo…\s+-\s+3\.5\/10 mo\s+mock\/…\s+2027-01-31\s+2026-01-01\s+never\s+active/);
    expect(frame).toContain('key_aaaa1111  sk-gw-abc…1111 · local@localhost');
    expect(frame).toContain('created 2026-01-01 · last used 2026-01-14 23:00 · expires never');
    await tui.press(KEYS.down);
    const second = await tui.waitFor('spent 3.5 of 10 credits this month · models mock/* · endpoints chat, images');
    expect(second).toContain('never used · expires 2027-01-31');
    expect(second).toContain('› key_bbbb2222');
  });

  it("edits a key's RPM and limit in a form; refusals name the field and keep the form", async () => {
    const api = three();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (3)');
    await tui.press(KEYS.down, KEYS.down, 'e');
    await tui.waitFor('Edit key key_cccc3333 (third)');
    await tui.press(KEYS.tab, ...type('30'), KEYS.down, KEYS.down, KEYS.down, KEYS.down, ...type('-5'), KEYS.enter);
    expect(await tui.waitFor('Limit (credits): must not be negative')).toContain('Edit key key_cccc3333');
    expect(api.calls.filter((c) => c.startsWith('keys.set'))).toEqual([]);
    await tui.press(KEYS.backspace, KEYS.backspace, ...type('10'), KEYS.tab, 'm', KEYS.enter);
    await tui.waitFor('✓ Key key_cccc3333 (third): rpm 30; spent 0 of 10 credits this month; scope all.');
    expect(api.calls).toContain('keys.set key_cccc3333 rpm=30 limit=10 limitReset=monthly');
    const frame = await tui.waitFor(/› key_cccc3333\s+third\s+local@lo…\s+30\s+0\/10 mo\s/);
    expect(frame).toContain('spent 0 of 10 credits this month · models all');
  });

  it('a refusal wider than the form wraps, and the layout gives it its lines: the form is drawn whole', async () => {
    // More keys than the screen has rows for: the table takes every row the layout gives it.
    const many = fakeAdminApi({ keys: Array.from({ length: 12 }, (_, n) => apiKey(`key_${String(n).padStart(8, '0')}`, { name: `k${n}` })) });
    const tui = await renderWithAdmin(many, { size: { columns: 60, rows: 30 } });
    await tui.press('3');
    const idle = (await tui.waitFor('API keys (12)')).split('\n');
    await tui.press('e');
    await tui.waitFor('Edit key');
    await tui.press(KEYS.down, KEYS.down, KEYS.down, KEYS.down, ...type('chats'), KEYS.enter);
    await tui.waitFor("'chats' is not an endpoint");
    await settle();
    const shown = tui.frame().split('\n');
    // Four lines in the form's 56 columns, where the screen gave it one: Ink cut the form's end (its keys, its border).
    const at = shown.findIndex((line) => line.includes("'chats' is not an endpoint"));
    expect(shown[at + 3]).toMatch(/^│ .*moderations\s+│$/);
    expect(shown[at + 4]).toContain('Esc to cancel');
    expect(shown[at + 5]).toMatch(/^╰─+╯$/);
    // The table gave up the rows: the frame keeps the terminal's height, the status line in its place.
    expect(shown.length).toBe(idle.length);
    expect(shown.at(-1)).toBe(idle.at(-1));
  });

  it('takes a form\'s keys that arrive in one chunk (fast typing over a slow link), each after the one before', async () => {
    const api = three();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (3)');
    await tui.press(KEYS.down, KEYS.down, 'e');
    await tui.waitFor('Edit key key_cccc3333 (third)');
    // One write: Tab, "30", four ↓, Ctrl-U, "10", Tab, "m", Enter. Before, every key of the chunk saw the form as it
    // was before the chunk: all the text went to the first field ("third10") and the limit stayed unset.
    await tui.press(`${KEYS.tab}30${KEYS.down.repeat(4)}\u001510${KEYS.tab}m${KEYS.enter}`);
    await tui.waitFor('✓ Key key_cccc3333 (third): rpm 30; spent 0 of 10 credits this month; scope all.');
    expect(api.calls).toContain('keys.set key_cccc3333 rpm=30 limit=10 limitReset=monthly');
  });

  it('edits expiry and scopes, and clears them with empty fields', async () => {
    const api = three();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (3)');
    await tui.press(KEYS.down, 'e');
    await tui.waitFor('Edit key key_bbbb2222 (second)');
    await tui.press(KEYS.tab, KEYS.tab, '\u0015', ...type('2028-06-30'), KEYS.tab, '\u0015', KEYS.tab, '\u0015', ...type('chat, video'), KEYS.enter);
    // The list wraps inside the box at 100 columns; its start is enough to know the field was refused.
    await tui.waitFor("Endpoints: 'video' is not an endpoint (did you mean 'videos'?); an endpoint is one of");
    await tui.press('\u0015', ...type('chat, messages'), KEYS.enter);
    await tui.waitFor('✓ Key key_bbbb2222');
    expect(api.calls).toContain('keys.set key_bbbb2222 expires=2028-06-30 models=null endpoints=chat,messages');
    await tui.waitFor(/key_bbbb2222\s+second\s+local@lo…\s+-\s+3\.5\/10 mo\s+all m…\s+2028-06-30/);
    expect(tui.frame()).toContain('spent 3.5 of 10 credits this month · models all · endpoints chat, messages');
    expect(tui.frame()).toContain('· expires 2028-06-30');
  });

  it('the cursor follows a newly created key, so the next revoke hits it', async () => {
    const api = three();
    const tui = await renderWithAdmin(api);
    await tui.press('3');
    await tui.waitFor('API keys (3)');
    expect(tui.frame()).toContain('› key_aaaa1111');
    await tui.press('n');
    await tui.waitFor('New key: name');
    await tui.press(...type('fresh'), KEYS.enter);
    await tui.waitFor('owner account');
    await tui.press(KEYS.enter);
    await tui.waitFor('Store it now');
    await tui.press(KEYS.enter);
    const frame = await tui.waitFor('API keys (4)');
    expect(frame).toMatch(/› key_new1\s+fresh/);
    await tui.press('x');
    await tui.waitFor('Revoke key key_new1 (fresh)?');
    await tui.press('y');
    await tui.waitFor('✓ Revoked key key_new1 (fresh).');
    expect(api.calls).toContain('keys.revoke key_new1');
  });

  it('a refusal the server makes of what was typed (a past expiry) keeps the form, its text and the field named', async () => {
    // The real admin procedures in process: the past expiry is refused by the service, not by the schema the form checks.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-tui-keys-'));
    const connection = await connectAdmin({ config: parseConfig({ providers: { mock: { plugin: 'mock' } } }), dataDir, configDir: process.cwd(), command: 'gateway tui' });
    try {
      const api = createAdminApi(connection.client);
      const created = await api.createKey({ name: 'ci' });
      const tui = await renderWithAdmin(api);
      await tui.press('3');
      await tui.waitFor('API keys (1)');
      await tui.press('e');
      await tui.waitFor('Edit key');
      await tui.press(KEYS.tab, ...type('30'), KEYS.tab, ...type('2020-01-01'), KEYS.enter);
      const refused = await tui.waitFor("Expires: must be in the future, got '2020-01-01'");
      expect(refused).toContain(`Edit key ${created.id} (ci)`);
      expect(refused).toMatch(/RPM\s+30/);
      expect(refused).toMatch(/› Expires\s+2020-01-01/);
      await tui.press('\u0015', ...type('2030-01-31'), KEYS.enter);
      await tui.waitFor(`✓ Key ${created.id} (ci): rpm 30`);
      expect(tui.frame()).not.toContain('Edit key');
      expect(await api.listKeys()).toEqual([expect.objectContaining({ id: created.id, rpm: 30, expires_at: Date.parse('2030-01-31') / 1000 })]);
    } finally {
      cleanup();
      await connection.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
