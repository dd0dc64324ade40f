import type { AccountView, AdminMediaView, CreatedKey, KeyView, ModelRow, TuiAdminApi } from '../../src/tui/core/index.ts';

/** Records held by a fake admin API; tests read and change them directly. */
export interface FakeAdminData {
  accounts: AccountView[];
  keys: KeyView[];
  models: ModelRow[];
  media: AdminMediaView[];
}

export interface FakeAdminApi extends TuiAdminApi {
  data: FakeAdminData;
  /** Procedure calls in order, e.g. `keys.revoke key_1`. */
  calls: string[];
  /** Makes the named method reject with `message` until cleared. */
  failures: Map<string, string>;
}

export function account(email: string, patch: Partial<AccountView> = {}): AccountView {
  return { id: `acct_${email.split('@')[0]}`, email, tier: 'free', credits: 0, monthly_token_quota: null, suspended: false, rpm: null, created_at: 1_767_225_600, spend_cap: null, month_spent: null, has_password: false, ...patch };
}

export function apiKey(id: string, patch: Partial<KeyView> = {}): KeyView {
  return { id, account: 'local@localhost', name: 'default', preview: `sk-gw-abc…${id.slice(-4)}`, rpm: null, expires_at: null, revoked_at: null, created_at: 1_767_225_600, last_used_at: null, models: null, endpoints: null, limit: null, limit_reset: null, limit_used: null, ...patch };
}

export function media(id: string, patch: Partial<AdminMediaView> = {}): AdminMediaView {
  return {
    id,
    account: 'local@localhost',
    media_type: 'image',
    status: 'completed',
    model: 'mock/image',
    prompt: 'a lighthouse at dusk',
    parameters: {},
    result_urls: [],
    primary_url: null,
    preview_url: null,
    file_size_bytes: null,
    duration_seconds: null,
    width: 1024,
    height: 1024,
    error: null,
    created_at: 1_767_225_600,
    completed_at: 1_767_225_610,
    ...patch,
  };
}

/** A TuiAdminApi over in-memory records, shaped like the real procedures' answers. */
export function fakeAdminApi(data: Partial<FakeAdminData> = {}, options: { media?: boolean } = {}): FakeAdminApi {
  const state: FakeAdminData = {
    accounts: data.accounts ?? [account('local@localhost', { tier: 'enterprise', credits: 1_000_000 })],
    keys: data.keys ?? [],
    models: data.models ?? [{ id: 'mock/echo', type: 'chat', provider: 'mock', formats: ['chat'], capabilities: ['tools'] }],
    media: data.media ?? [],
  };
  const calls: string[] = [];
  const failures = new Map<string, string>();
  let serial = 0;
  const call = async <T>(name: string, detail: string, fn: () => T): Promise<T> => {
    calls.push(detail ? `${name} ${detail}` : name);
    await Promise.resolve();
    const failure = failures.get(name);
    if (failure) throw new Error(failure);
    return fn();
  };
  const findAccount = (email: string) => {
    const found = state.accounts.find((a) => a.email === email);
    if (!found) throw new Error(`No account with email ${email}.`);
    return found;
  };
  const api: FakeAdminApi = {
    data: state,
    calls,
    failures,
    listAccounts: () => call('accounts.list', '', () => state.accounts.map((a) => ({ ...a }))),
    createAccount: ({ email }) => call('accounts.create', email, () => {
      const created = account(email);
      state.accounts.push(created);
      return created;
    }),
    addCredits: ({ email, add }) => call('billing.addCredits', `${email} ${add}`, () => {
      const found = findAccount(email);
      found.credits += add;
      return { ...found };
    }),
    setSuspended: ({ email, suspended }) => call('billing.setAccount', `${email} suspended=${suspended}`, () => {
      const found = findAccount(email);
      found.suspended = suspended;
      return { ...found };
    }),
    listKeys: () => call('keys.list', '', () => state.keys.map((k) => ({ ...k }))),
    createKey: ({ name, account: email }) => call('keys.create', `${name ?? '-'} ${email ?? '-'}`, () => {
      const owner = findAccount(email ?? 'local@localhost');
      serial += 1;
      const secret = `sk-gw-SECRET${serial}abcdefghijklmnopqrstuvwxyz0123456789`;
      const view = apiKey(`key_new${serial}`, { name: name ?? 'default', account: owner.email, preview: `${secret.slice(0, 9)}…${secret.slice(-4)}` });
      state.keys.push(view);
      return { ...view, key: secret } satisfies CreatedKey;
    }),
    revokeKey: ({ id }) => call('keys.revoke', id, () => {
      const found = state.keys.find((k) => k.id === id);
      if (!found) throw new Error(`No API key with id ${id}.`);
      found.revoked_at = 1_767_300_000;
      return { ...found };
    }),
    listModels: () => call('models.list', '', () => state.models.map((m) => ({ ...m }))),
    usage: () => call('billing.usage', '', () => ({
      accounts: state.accounts.map((a) => ({ email: a.email, tier: a.tier, balance: a.credits, spent_credits: 12.5, requests: 7, month_tokens: 1234, monthly_token_quota: a.monthly_token_quota, suspended: a.suspended })),
    })),
  };
  if (options.media !== false) api.listMedia = ({ pageSize }) => call('media.list', String(pageSize), () => ({ data: state.media.slice(0, pageSize), total: state.media.length }));
  return api;
}
