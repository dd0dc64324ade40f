import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { TuiAdminApi } from '../../src/tui/core/index.ts';
import { account, fakeAdminApi } from './fake-admin-api.ts';
import { KEYS, renderWithAdmin } from './render-with-admin.tsx';

afterEach(() => cleanup());

const type = (text: string) => [...text];

describe('admin TUI: Accounts tab', () => {
  const twoAccounts = () => fakeAdminApi({ accounts: [account('ann@x.test', { tier: 'pro', credits: 1500, monthly_token_quota: 2_000_000 }), account('bob@x.test', { credits: 20 })] });

  it('lists email, tier, credits, quota, RPM, spend cap, login and suspension', async () => {
    const api = twoAccounts();
    Object.assign(api.data.accounts[0], { spend_cap: 5000, month_spent: 1234.5, has_password: true });
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    const frame = await tui.waitFor('Accounts (2)');
    expect(frame).toMatch(/EMAIL\s+TIER\s+CREDITS\s+TOKEN QUOTA\s+RPM\s+SPEND CAP\s+LOGIN\s+SUSPENDED/);
    expect(frame).toMatch(/ann@x\.test\s+pro\s+1,500\s+2,000,000\s+tier\s+1,234\.5\/5,000\s+yes\s+no/);
    expect(frame).toMatch(/bob@x\.test\s+free\s+20\s+unlimited\s+tier\s+-\s+no\s+no/);
  });

  it('adds credits to the selected account, re-asking on a bad amount', async () => {
    const api = twoAccounts();
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    await tui.waitFor('Accounts (2)');
    await tui.press(KEYS.down, 'c');
    await tui.waitFor('Add credits to bob@x.test (balance 20)');
    await tui.press(...type('lots'), KEYS.enter);
    expect(await tui.waitFor("not a number: 'lots'")).toContain('Add credits to bob@x.test');
    await tui.press('\u0015', ...type('250'), KEYS.enter);
    await tui.waitFor('✓ bob@x.test: added 250 credits; balance 270.');
    expect(api.calls).toContain('billing.addCredits bob@x.test 250');
    expect(await tui.waitFor(/bob@x\.test\s+free\s+270/)).not.toContain('Add credits to');
  });

  it('suspends and lifts a suspension after a y/n confirmation', async () => {
    const api = twoAccounts();
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    await tui.waitFor('Accounts (2)');
    await tui.press('s');
    await tui.waitFor('Suspend ann@x.test?');
    await tui.press(KEYS.escape);
    await tui.waitFor('s suspend / unsuspend');
    expect(api.calls.some((c) => c.startsWith('billing.setAccount'))).toBe(false);
    await tui.press('s');
    await tui.waitFor('Suspend ann@x.test?');
    await tui.press('y');
    await tui.waitFor('✓ ann@x.test is suspended.');
    expect(await tui.waitFor(/ann@x\.test.*yes/)).toBeTruthy();
    await tui.press('s');
    await tui.waitFor('Lift the suspension of ann@x.test?');
    await tui.press('y');
    await tui.waitFor('✓ ann@x.test is active again.');
    expect(api.calls.filter((c) => c.startsWith('billing.setAccount'))).toEqual(['billing.setAccount ann@x.test suspended=true', 'billing.setAccount ann@x.test suspended=false']);
  });

  it('creates an account with tier, credits and password from one form; the cursor lands on it', async () => {
    const api = fakeAdminApi();
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    await tui.waitFor('Accounts (1)');
    await tui.press('a');
    await tui.waitFor('New account');
    await tui.press(...type('new@x.test'), KEYS.tab);
    // Tier is a choice: → steps through free, basic, fellow, pro; a letter jumps to it.
    await tui.press(KEYS.right, KEYS.right, KEYS.right, KEYS.tab);
    await tui.waitFor('‹ pro ›');
    await tui.press('\u0015', ...type('2500'), KEYS.tab, ...type('hunter2'), KEYS.enter);
    // The same schema as the CLI refuses a short password, naming the field; the form stays.
    const refused = await tui.waitFor('Password: must be at least 8 characters');
    expect(refused).not.toContain('•••••••••••');
    expect(api.calls.filter((c) => c.startsWith('accounts.create'))).toEqual([]);
    await tui.press(...type('22'), KEYS.enter);
    await tui.waitFor('✓ Created account new@x.test (pro, 2,500 credits, can log in).');
    expect(api.calls).toContain('accounts.create new@x.test pro 2500 password');
    expect(api.passwords.get('new@x.test')).toBe('hunter222');
    const frame = await tui.waitFor('Accounts (2)');
    expect(frame).toMatch(/› new@x\.test\s+pro\s+2,500/);
    expect(frame).not.toContain('hunter');
  });

  it('an email already taken keeps the new-account form with what was typed, saying so', async () => {
    const api = twoAccounts();
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    await tui.waitFor('Accounts (2)');
    await tui.press('a');
    await tui.waitFor('New account');
    await tui.press(...type('bob@x.test'), KEYS.tab, 'p', KEYS.tab, '\u0015', ...type('2500'), KEYS.tab, ...type('a long password'), KEYS.enter);
    const refused = await tui.waitFor('An account with email bob@x.test already exists.');
    expect(refused).toContain('New account');
    expect(refused).toMatch(/› Email\s+bob@x\.test/);
    expect(refused).toContain('‹ pro ›');
    expect(refused).toMatch(/Credits\s+2500/);
    expect(refused).toMatch(/Password\s+•{15}/);
    await tui.press('\u0015', ...type('carol@x.test'), KEYS.enter);
    await tui.waitFor('✓ Created account carol@x.test (pro, 2,500 credits, can log in).');
    expect(api.passwords.get('carol@x.test')).toBe('a long password');
  });

  it('edits tier, quota, spend cap and password; only what changed is sent', async () => {
    const api = twoAccounts();
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    await tui.waitFor('Accounts (2)');
    await tui.press(KEYS.down, 'e');
    await tui.waitFor('Edit account bob@x.test');
    await tui.press('b', KEYS.tab, ...type('50000'), KEYS.tab, KEYS.tab, ...type('-1'), KEYS.enter);
    await tui.waitFor('Spend cap: must not be negative');
    await tui.press(KEYS.backspace, KEYS.backspace, ...type('900'), KEYS.tab, ...type('new secret'), KEYS.enter);
    await tui.waitFor('✓ bob@x.test: tier basic, quota 50,000, spend cap 900, new password set.');
    expect(api.calls).toContain('accounts.set bob@x.test tier=basic quota=50000 spendCap=900 password=***');
    expect(api.passwords.get('bob@x.test')).toBe('new secret');
    expect(await tui.waitFor(/bob@x\.test\s+basic\s+20\s+50,000\s+tier\s+900/)).not.toContain('Edit account');
    // Nothing changed: no call.
    await tui.press('e');
    await tui.waitFor('Edit account bob@x.test');
    await tui.press(KEYS.enter);
    await tui.waitFor('bob@x.test: nothing changed.');
    expect(api.calls.filter((c) => c.startsWith('accounts.set'))).toHaveLength(1);
  });

  it('shows a procedure error in the status line', async () => {
    const api = twoAccounts();
    api.failures.set('billing.addCredits', 'No account with email ann@x.test.');
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    await tui.waitFor('Accounts (2)');
    await tui.press('c', ...type('5'), KEYS.enter);
    expect(await tui.waitFor('✗ Adding credits failed: No account with email ann@x.test.')).toContain('c add credits');
  });

  it('offers only the actions the gateway has procedures for', async () => {
    const api: TuiAdminApi = { ...fakeAdminApi(), createAccount: undefined, addCredits: undefined, setSuspended: undefined };
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    const frame = await tui.waitFor('Accounts (1)');
    expect(frame).not.toContain('add credits');
    await tui.press('c', 's', 'a');
    expect(tui.frame()).not.toMatch(/Add credits|Suspend|New account/);
  });
});
