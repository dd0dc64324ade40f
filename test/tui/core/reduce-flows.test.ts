import { describe, expect, it } from 'vitest';
import { idleAccountsFlow, idleKeysFlow, keysFlowCaptures, parseCredits, reduceAccountsFlow, reduceKeysFlow, type KeysFlow } from '../../../src/tui/core/index.ts';
import { account, apiKey } from '../fake-admin-api.ts';

describe('reduceKeysFlow', () => {
  it('walks name → account → creating → secret → idle, dropping the secret at the end', () => {
    let flow: KeysFlow = reduceKeysFlow(idleKeysFlow, { type: 'create' });
    expect(flow).toEqual({ step: 'name' });
    flow = reduceKeysFlow(flow, { type: 'name', name: '  ci  ' });
    expect(flow).toEqual({ step: 'account', name: 'ci' });
    flow = reduceKeysFlow(flow, { type: 'account', account: 'a@x.test' });
    expect(flow).toEqual({ step: 'creating', name: 'ci', account: 'a@x.test' });
    flow = reduceKeysFlow(flow, { type: 'created', created: { ...apiKey('key_1'), key: 'sk-gw-secret' } });
    expect(flow.step).toBe('secret');
    expect(keysFlowCaptures(flow)).toBe(true);
    flow = reduceKeysFlow(flow, { type: 'done' });
    expect(flow).toEqual(idleKeysFlow);
    expect(JSON.stringify(flow)).not.toContain('sk-gw-secret');
  });

  it('revokes only after a confirmation, and ignores actions out of order', () => {
    const key = apiKey('key_1');
    const asked = reduceKeysFlow(idleKeysFlow, { type: 'revoke', key });
    expect(asked).toEqual({ step: 'confirm-revoke', key });
    expect(reduceKeysFlow(asked, { type: 'create' })).toBe(asked);
    expect(reduceKeysFlow(asked, { type: 'confirm' })).toEqual({ step: 'revoking', key });
    expect(reduceKeysFlow(asked, { type: 'cancel' })).toEqual(idleKeysFlow);
    expect(reduceKeysFlow(idleKeysFlow, { type: 'confirm' })).toBe(idleKeysFlow);
  });
});

describe('reduceAccountsFlow', () => {
  it('keeps the credits prompt open with the validation error', () => {
    const alice = account('alice@x.test');
    const open = reduceAccountsFlow(idleAccountsFlow, { type: 'credits', account: alice });
    expect(reduceAccountsFlow(open, { type: 'invalid', error: 'not a number' })).toEqual({ step: 'credits', account: alice, error: 'not a number' });
    expect(reduceAccountsFlow(idleAccountsFlow, { type: 'invalid', error: 'x' })).toBe(idleAccountsFlow);
  });
});

describe('parseCredits', () => {
  it.each([
    ['250', 250],
    [' -10.5 ', -10.5],
    ['1_000', 1000],
  ])('reads %j as %d', (text, value) => {
    expect(parseCredits(text)).toEqual({ ok: true, value });
  });

  it.each(['', 'ten', '0', 'Infinity'])('refuses %j', (text) => {
    expect(parseCredits(text).ok).toBe(false);
  });
});
