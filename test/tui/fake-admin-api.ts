import type { AccountView, AdminBatchView, AdminMediaView, CreatedKey, KeyView, ModelRow, TuiAdminApi } from '../../src/tui/core/index.ts';

/** Records held by a fake admin API; tests read and change them directly. */
export interface FakeAdminData {
  accounts: AccountView[];
  keys: KeyView[];
  models: ModelRow[];
  media: AdminMediaView[];
  /** Newest first, as the procedure lists them. */
  batches: AdminBatchView[];
}

export interface FakeAdminApi extends TuiAdminApi {
  data: FakeAdminData;
  /** Procedure calls in order, e.g. `keys.revoke key_1`. */
  calls: string[];
  /** Makes the named method reject with `message` until cleared. */
  failures: Map<string, string>;
  passwords: Map<string, string>;
}

/** `id limit=10 models=mock/*` for a call log line; passwords are logged as `password=***`. */
function describeChange(input: Record<string, unknown>, id: string): string {
  const parts = [String(input[id])];
  for (const [k, v] of Object.entries(input)) {
    if (k === id || v === undefined) continue;
    parts.push(`${k}=${k === 'password' && v !== null ? '***' : Array.isArray(v) ? v.join(',') : String(v)}`);
  }
  return parts.join(' ');
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

export function batch(id: string, patch: Partial<AdminBatchView> = {}): AdminBatchView {
  return {
    id,
    object: 'batch',
    account: 'local@localhost',
    endpoint: '/v1/chat/completions',
    errors: null,
    input_file_id: 'file-input1',
    completion_window: '24h',
    status: 'in_progress',
    output_file_id: null,
    error_file_id: null,
    created_at: 1_767_225_600,
    in_progress_at: 1_767_225_601,
    expires_at: 1_767_312_000,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total: 40, completed: 12, failed: 2 },
    metadata: null,
    ...patch,
  };
}

/** A TuiAdminApi over in-memory records, shaped like the real procedures' answers. */
export function fakeAdminApi(data: Partial<FakeAdminData> = {}, options: { media?: boolean; batches?: boolean } = {}): FakeAdminApi {
  const state: FakeAdminData = {
    accounts: data.accounts ?? [account('local@localhost', { tier: 'enterprise', credits: 1_000_000 })],
    keys: data.keys ?? [],
    models: data.models ?? [{ id: 'mock/echo', type: 'chat', provider: 'mock', formats: ['chat'], modality: 'text->text', capabilities: ['tools'] }],
    media: data.media ?? [],
    batches: data.batches ?? [],
  };
  const calls: string[] = [];
  /** Passwords set through the fake, by email (a test can check what would log in). */
  const passwords = new Map<string, string>();
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
    passwords,
    listAccounts: () => call('accounts.list', '', () => state.accounts.map((a) => ({ ...a }))),
    createAccount: (input) => call('accounts.create', [input.email, input.tier, input.credits, input.password ? 'password' : undefined, input.quota, input.spendCap].filter((v) => v !== undefined && v !== null).join(' '), () => {
      // As the admin client over HTTP reads it: tRPC's error with the gateway's code in data.
      if (state.accounts.some((a) => a.email === input.email)) throw Object.assign(new Error(`An account with email ${input.email} already exists.`), { data: { gatewayCode: 'conflict' } });
      const created = account(input.email, {
        tier: input.tier ?? 'free',
        credits: input.credits ?? 0,
        has_password: Boolean(input.password),
        monthly_token_quota: input.quota ?? null,
        spend_cap: input.spendCap ?? null,
      });
      state.accounts.push(created);
      if (input.password) passwords.set(input.email, input.password);
      return { ...created };
    }),
    setAccount: (input) => call('accounts.set', describeChange(input, 'email'), () => {
      const found = findAccount(input.email);
      if (input.tier !== undefined) found.tier = input.tier;
      if (input.quota !== undefined) found.monthly_token_quota = input.quota;
      if (input.rpm !== undefined) found.rpm = input.rpm;
      if (input.spendCap !== undefined) found.spend_cap = input.spendCap;
      if (input.suspended !== undefined) found.suspended = input.suspended;
      if (input.password !== undefined) {
        found.has_password = input.password !== null;
        if (input.password === null) passwords.delete(found.email);
        else passwords.set(found.email, input.password);
      }
      return { ...found };
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
    setKey: (input) => call('keys.set', describeChange(input, 'id'), () => {
      const found = state.keys.find((k) => k.id === input.id);
      if (!found) throw new Error(`No API key with id ${input.id}.`);
      if (input.name !== undefined) found.name = input.name;
      if (input.rpm !== undefined) found.rpm = input.rpm;
      if (input.expires !== undefined) found.expires_at = input.expires === null ? null : Math.floor(Date.parse(input.expires) / 1000);
      if (input.models !== undefined) found.models = input.models;
      if (input.endpoints !== undefined) found.endpoints = input.endpoints;
      if (input.limit !== undefined) {
        found.limit = input.limit;
        found.limit_used = input.limit === null ? null : (found.limit_used ?? 0);
      }
      if (input.limitReset !== undefined) found.limit_reset = input.limitReset;
      return { ...found };
    }),
    revokeKey: ({ id }) => call('keys.revoke', id, () => {
      const found = state.keys.find((k) => k.id === id);
      if (!found) throw new Error(`No API key with id ${id}.`);
      found.revoked_at = 1_767_300_000;
      return { ...found };
    }),
    listModels: () => call('models.list', '', () => state.models.map((m) => ({ ...m }))),
    usage: () => call('billing.usage', '', () => ({
      accounts: state.accounts.map((a) => ({ email: a.email, tier: a.tier, balance: a.credits, spent_credits: 12.5, requests: 7, month_tokens: 1234, month_web_search_requests: 3, monthly_token_quota: a.monthly_token_quota, suspended: a.suspended })),
    })),
  };
  if (options.media !== false) {
    api.listMedia = ({ page, pageSize, type, status }) =>
      call('media.list', [page, pageSize, type, status].filter((v) => v !== undefined).join(' '), () => {
        const matches = state.media.filter((m) => (!type || m.media_type === type) && (!status || m.status === status));
        return { data: matches.slice((page - 1) * pageSize, page * pageSize), total: matches.length };
      });
    api.deleteMedia = ({ id }) =>
      call('media.remove', id, () => {
        const at = state.media.findIndex((m) => m.id === id);
        if (at < 0) throw new Error(`No media generation with id '${id}'.`);
        state.media.splice(at, 1);
        return { id, deleted: true };
      });
  }
  if (options.batches !== false) {
    api.listBatches = ({ limit, after, status }) =>
      call('batches.list', [limit, after, status?.join(',')].filter((v) => v !== undefined).join(' '), () => {
        const matches = state.batches.filter((b) => !status || status.includes(b.status));
        const from = after === undefined ? 0 : matches.findIndex((b) => b.id === after) + 1;
        const data = from === 0 && after !== undefined ? [] : matches.slice(from, from + limit);
        return { data: data.map((b) => ({ ...b })), has_more: from + limit < matches.length };
      });
    api.cancelBatch = ({ id }) =>
      call('batches.cancel', id, () => {
        const found = state.batches.find((b) => b.id === id);
        if (!found) throw new Error(`No batch with id '${id}'.`);
        if (['completed', 'failed', 'expired', 'cancelled'].includes(found.status)) throw new Error(`The batch is ${found.status}; only a batch that has not finished can be cancelled.`);
        // Like the server: nothing runs a validating batch yet, so it ends at once; a running one is cancelling.
        Object.assign(found, found.status === 'validating' ? { status: 'cancelled', cancelled_at: 1_767_300_000 } : { status: 'cancelling', cancelling_at: 1_767_300_000 });
        return { ...found };
      });
  }
  return api;
}
