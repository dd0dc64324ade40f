import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { account, apiKey, fakeAdminApi } from './fake-admin-api.ts';
import { KEYS, renderWithAdmin } from './render-with-admin.tsx';

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
    expect(after).toMatch(/key_new1\s+q1 deploy\s+ann@x\.test\s+sk-gw-SEC…6789/);
    // Nothing brings the secret back: not a refresh, not another tab and back.
    await tui.press('r', '1');
    await tui.waitFor('Connection');
    await tui.press('3');
    expect(await tui.waitFor('API keys (1)')).not.toContain('SECRET1abcdefghij');
    expect(tui.frames.filter((f) => f.includes('SECRET1abcdefghij')).length).toBeGreaterThan(0);
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
