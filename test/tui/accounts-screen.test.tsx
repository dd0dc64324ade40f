import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { TuiAdminApi } from '../../src/tui/core/index.ts';
import { account, fakeAdminApi } from './fake-admin-api.ts';
import { KEYS, renderWithAdmin } from './render-with-admin.tsx';

afterEach(() => cleanup());

const type = (text: string) => [...text];

describe('admin TUI: Accounts tab', () => {
  const twoAccounts = () => fakeAdminApi({ accounts: [account('ann@x.test', { tier: 'pro', credits: 1500, monthly_token_quota: 2_000_000 }), account('bob@x.test', { credits: 20 })] });

  it('lists email, tier, credits, quota and suspension', async () => {
    const tui = await renderWithAdmin(twoAccounts());
    await tui.press('2');
    const frame = await tui.waitFor('Accounts (2)');
    expect(frame).toMatch(/EMAIL\s+TIER\s+CREDITS\s+QUOTA \(TOKENS\/MONTH\)\s+RPM\s+SUSPENDED/);
    expect(frame).toMatch(/ann@x\.test\s+pro\s+1,500\s+2,000,000\s+tier\s+no/);
    expect(frame).toMatch(/bob@x\.test\s+free\s+20\s+unlimited\s+tier\s+no/);
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

  it('creates an account from an email prompt', async () => {
    const api = fakeAdminApi();
    const tui = await renderWithAdmin(api);
    await tui.press('2');
    await tui.waitFor('Accounts (1)');
    await tui.press('a');
    await tui.waitFor('New account: email');
    await tui.press(...type('new@x.test'), KEYS.enter);
    await tui.waitFor('✓ Created account new@x.test (free).');
    expect(await tui.waitFor('Accounts (2)')).toContain('new@x.test');
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
