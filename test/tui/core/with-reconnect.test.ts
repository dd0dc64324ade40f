import { describe, expect, it } from 'vitest';
import { isStaleConnection, withReconnect, type TuiAdminApi } from '../../../src/tui/core/index.ts';
import { fakeAdminApi } from '../fake-admin-api.ts';

const refused = () => new Error('fetch failed', { cause: new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8787'), { code: 'ECONNREFUSED' }) }) });
const unauthorized = () => Object.assign(new Error('Unable to transform response from server'), { meta: { response: { status: 401 } } });
const reset = () => new Error('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });

/** An API whose every call fails with `error()`, counting the calls. */
function deadApi(error: () => Error): { api: TuiAdminApi; calls: () => number } {
  let calls = 0;
  const api: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fakeAdminApi())) {
    if (typeof value === 'function') api[name] = async () => {
      calls += 1;
      throw error();
    };
  }
  return { api: api as unknown as TuiAdminApi, calls: () => calls };
}

describe('withReconnect', () => {
  it('knows which failures never reached the server', () => {
    expect(isStaleConnection(refused())).toBe(true);
    expect(isStaleConnection(unauthorized())).toBe(true);
    expect(isStaleConnection(reset())).toBe(false);
    expect(isStaleConnection(new Error('No account with email x.'))).toBe(false);
  });

  it('reconnects once for concurrent failures and retries each call on the new API', async () => {
    const fresh = fakeAdminApi();
    let reconnects = 0;
    const api = withReconnect(deadApi(unauthorized).api, async () => {
      reconnects += 1;
      return fresh;
    });
    const [accounts, keys] = await Promise.all([api.listAccounts(), api.listKeys()]);
    expect(accounts.map((a) => a.email)).toEqual(['local@localhost']);
    expect(keys).toEqual([]);
    expect(reconnects).toBe(1);
    await api.listModels();
    expect(reconnects).toBe(1);
    expect(fresh.calls).toEqual(['accounts.list', 'keys.list', 'models.list']);
  });

  it('keeps the original error while no server is back', async () => {
    const api = withReconnect(deadApi(refused).api, async () => undefined);
    await expect(api.listAccounts()).rejects.toThrow('fetch failed');
  });

  it('never retries a call that may have run (connection reset) or a procedure error', async () => {
    let reconnects = 0;
    const dead = deadApi(reset);
    const api = withReconnect(dead.api, async () => {
      reconnects += 1;
      return fakeAdminApi();
    });
    await expect(api.addCredits!({ email: 'a@x.test', add: 5 })).rejects.toThrow('fetch failed');
    expect(dead.calls()).toBe(1);
    expect(reconnects).toBe(0);
  });

  it('keeps optional procedures optional', () => {
    const api = withReconnect(fakeAdminApi({}, { media: false }), async () => undefined);
    expect(api.listMedia).toBeUndefined();
    expect(api.usage).toBeTypeOf('function');
  });
});
