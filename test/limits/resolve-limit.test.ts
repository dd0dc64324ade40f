import { describe, expect, it } from 'vitest';

import { rateLimitConfigSchema, resolveConcurrency, resolveLimit, type LimitSubject } from '../../src/limits/index.ts';

const config = rateLimitConfigSchema.parse(undefined);
const ip = '203.0.113.9';
const account = (tier: NonNullable<LimitSubject['account']>['tier'], rpm?: number | null) => ({ id: 'acc1', tier, rpm });
const apiKey = (rpm?: number | null) => ({ id: 'key1', rpm });

describe('resolveLimit: spec §8.1 resolution order', () => {
  it('(1) a per-API-key RPM wins over everything else', () => {
    const subject: LimitSubject = { method: 'POST', path: '/v1/chat/completions', ip, apiKey: apiKey(7), account: account('free') };
    expect(resolveLimit(subject, config)).toEqual({ limit: 7, windowMs: 60_000, scope: 'api_key', key: 'k:key1', source: 'api_key' });
    // ...also on non-generation endpoints, and for enterprise accounts.
    expect(resolveLimit({ ...subject, path: '/v1/files' }, config)).toMatchObject({ limit: 7, source: 'api_key' });
    expect(resolveLimit({ ...subject, account: account('enterprise') }, config)).toMatchObject({ limit: 7, source: 'api_key' });
  });

  it('an API key without a custom RPM (null, 0) falls through', () => {
    for (const rpm of [undefined, null, 0]) {
      const subject: LimitSubject = { method: 'POST', path: '/v1/chat/completions', ip, apiKey: apiKey(rpm), account: account('basic') };
      expect(resolveLimit(subject, config)).toMatchObject({ source: 'tier', limit: 50 });
    }
  });

  it.each([
    ['free', 10],
    ['basic', 50],
    ['fellow', 100],
    ['pro', 100],
  ] as const)('(2) tier %s gets %i rpm on AI-generation endpoints, per account', (tier, limit) => {
    const subject: LimitSubject = { method: 'POST', path: '/v1/chat/completions', ip, apiKey: apiKey(), account: account(tier) };
    expect(resolveLimit(subject, config)).toEqual({ limit, windowMs: 60_000, scope: 'user', key: 'u:acc1:gen', source: 'tier' });
  });

  it.each([
    '/v1/chat/completions',
    '/v1/responses',
    '/v1/messages',
    '/v1/images/generations',
    '/v1/images/edits',
    '/v1/audio/speech',
    '/v1/audio/transcriptions',
    '/v1/audio/translations',
  ])('(2) POST %s is an AI-generation endpoint sharing one tier budget', (path) => {
    expect(resolveLimit({ method: 'POST', path, ip, account: account('free') }, config)).toMatchObject({ source: 'tier', limit: 10, key: 'u:acc1:gen' });
  });

  it('(2) enterprise is effectively unlimited (1,000,000, counted) unless the account has a custom RPM; a null tier is unlimited', () => {
    const subject: LimitSubject = { method: 'POST', path: '/v1/chat/completions', ip, account: account('enterprise') };
    expect(resolveLimit(subject, config)).toMatchObject({ limit: 1_000_000, scope: 'user', source: 'tier', key: 'u:acc1:gen' });
    const open = rateLimitConfigSchema.parse({ tiers: { enterprise: null } });
    expect(resolveLimit(subject, open)).toBeNull();
    expect(resolveLimit({ ...subject, account: account('enterprise', 5_000) }, config)).toMatchObject({ limit: 5_000, scope: 'user', source: 'tier' });
    // Not unlimited elsewhere: uploads keep their endpoint limit.
    expect(resolveLimit({ ...subject, path: '/v1/files' }, config)).toMatchObject({ limit: 20, source: 'endpoint' });
  });

  it('(2) a custom account RPM replaces the tier number', () => {
    const subject: LimitSubject = { method: 'POST', path: '/v1/messages', ip, account: account('free', 30) };
    expect(resolveLimit(subject, config)).toMatchObject({ limit: 30, source: 'tier' });
  });

  it('(3) endpoint limits apply where no tier limit does', () => {
    // No account (tier unknown): chat completions falls back to its endpoint limit, per API key.
    expect(resolveLimit({ method: 'POST', path: '/v1/chat/completions', ip, apiKey: apiKey() }, config)).toEqual({
      limit: 60,
      windowMs: 60_000,
      scope: 'api_key',
      key: 'k:key1:ep:POST /v1/chat/completions',
      source: 'endpoint',
    });
    expect(resolveLimit({ method: 'POST', path: '/v1/files', ip, account: account('pro') }, config)).toEqual({
      limit: 20,
      windowMs: 60_000,
      scope: 'user',
      key: 'u:acc1:ep:POST /v1/files',
      source: 'endpoint',
    });
  });

  it('(3) login is limited to 5 per minute per client IP, whoever calls', () => {
    expect(resolveLimit({ method: 'POST', path: '/api/auth/login', ip }, config)).toEqual({
      limit: 5,
      windowMs: 60_000,
      scope: 'ip',
      key: `ip:${ip}:ep:POST /api/auth/login`,
      source: 'endpoint',
    });
    expect(resolveLimit({ method: 'POST', path: '/api/auth/login/', ip, account: account('pro') }, config)).toMatchObject({ scope: 'ip', limit: 5 });
  });

  it('(4) everything else gets the global default per caller', () => {
    expect(resolveLimit({ method: 'GET', path: '/v1/credits', ip, account: account('free') }, config)).toEqual({
      limit: 600,
      windowMs: 60_000,
      scope: 'user',
      key: 'u:acc1:all',
      source: 'default',
    });
    expect(resolveLimit({ method: 'GET', path: '/v1/key', ip, apiKey: apiKey() }, config)).toMatchObject({ scope: 'api_key', key: 'k:key1:all' });
    expect(resolveLimit({ method: 'GET', path: '/v1/activity', ip }, config)).toMatchObject({ scope: 'ip', key: `ip:${ip}:all` });
    // GET of a generation path is not generation: default, not tier.
    expect(resolveLimit({ method: 'GET', path: '/v1/responses/resp_1', ip, account: account('free') }, config)).toMatchObject({ source: 'default' });
  });

  it.each([
    ['GET', '/health'],
    ['GET', '/healthz'],
    ['HEAD', '/readyz'],
    ['GET', '/v1/health'],
    ['GET', '/v1/models'],
    ['GET', '/v1/models/gpt-4o-mini'],
    ['GET', '/v1/models/openai/gpt-4o?x=1'],
    ['POST', '/v1/batches'],
    ['GET', '/v1/batches'],
    ['GET', '/v1/batches/batch_1'],
    ['POST', '/v1/batches/batch_1/cancel'],
    ['POST', '/v1/messages/batches'],
    ['GET', '/v1/media/generations'],
    ['POST', '/v1/media/generations'],
    ['PATCH', '/v1/media/generations/gen_1'],
    ['DELETE', '/v1/media/generations/gen_1'],
    ['GET', '/v1/media/images?page=2'],
    ['GET', '/v1/files'],
    ['GET', '/v1/files/file_1/content'],
    ['DELETE', '/v1/files/file_1'],
    ['OPTIONS', '/v1/chat/completions'],
  ])('exempt: %s %s', (method, path) => {
    // Even a per-key RPM does not apply to exempt endpoints.
    expect(resolveLimit({ method, path, ip, apiKey: apiKey(1), account: account('free') }, config)).toBeNull();
  });

  it('is not fooled by look-alike paths', () => {
    const free = account('free');
    expect(resolveLimit({ method: 'POST', path: '/v1/models', ip, account: free }, config)).not.toBeNull();
    expect(resolveLimit({ method: 'GET', path: '/v1/modelsx', ip, account: free }, config)).not.toBeNull();
    expect(resolveLimit({ method: 'GET', path: '/v1/mediax', ip, account: free }, config)).not.toBeNull();
    expect(resolveLimit({ method: 'POST', path: '/v1/files', ip, account: free }, config)).toMatchObject({ limit: 20 });
    expect(resolveLimit({ method: 'POST', path: '/v1/messages/count_tokens', ip, account: free }, config)).toMatchObject({ source: 'default' });
  });

  it('counts IPv6 clients per /64 and IPv4-mapped ones as IPv4', () => {
    const a = resolveLimit({ method: 'POST', path: '/api/auth/login', ip: '2001:db8:1:2:aaaa::1' }, config);
    const b = resolveLimit({ method: 'POST', path: '/api/auth/login', ip: '2001:0db8:0001:0002:ffff:1:2:3' }, config);
    const c = resolveLimit({ method: 'POST', path: '/api/auth/login', ip: '2001:db8:1:3::1' }, config);
    expect(a?.key).toBe('ip:2001:db8:1:2::/64:ep:POST /api/auth/login');
    expect(b?.key).toBe(a?.key);
    expect(c?.key).not.toBe(a?.key);
    expect(resolveLimit({ method: 'POST', path: '/api/auth/login', ip: '::ffff:198.51.100.7' }, config)?.key).toBe('ip:198.51.100.7:ep:POST /api/auth/login');
  });

  it('takes every number from config', () => {
    const custom = rateLimitConfigSchema.parse({
      default: 42,
      windowMs: 10_000,
      tiers: { free: 3, enterprise: 1_000 },
      endpoints: { 'POST /v1/files': { rpm: 2, per: 'ip' }, 'POST /api/auth/login': null, 'POST /v1/embeddings': 9, 'GET /v1/responses/*': 11 },
    });
    expect(resolveLimit({ method: 'POST', path: '/v1/chat/completions', ip, account: account('free') }, custom)).toMatchObject({ limit: 3, windowMs: 10_000 });
    expect(resolveLimit({ method: 'POST', path: '/v1/chat/completions', ip, account: account('enterprise') }, custom)).toMatchObject({ limit: 1_000 });
    expect(resolveLimit({ method: 'POST', path: '/v1/files', ip, account: account('pro') }, custom)).toMatchObject({ limit: 2, scope: 'ip' });
    expect(resolveLimit({ method: 'POST', path: '/api/auth/login', ip }, custom)).toMatchObject({ limit: 42, source: 'default' });
    expect(resolveLimit({ method: 'POST', path: '/v1/embeddings', ip, apiKey: apiKey() }, custom)).toMatchObject({ limit: 9, scope: 'api_key' });
    expect(resolveLimit({ method: 'GET', path: '/v1/responses/r1/input_items', ip }, custom)).toMatchObject({ limit: 11, key: `ip:${ip}:ep:GET /v1/responses/*` });
    // Untouched defaults survive a partial override.
    expect(resolveLimit({ method: 'POST', path: '/v1/chat/completions', ip, account: account('basic') }, custom)).toMatchObject({ limit: 50 });
    expect(resolveLimit({ method: 'GET', path: '/v1/credits', ip }, rateLimitConfigSchema.parse({ default: null }))).toBeNull();
  });
});

describe('resolveConcurrency', () => {
  it('caps in-flight AI generation per API key, sized by the account\'s tier', () => {
    expect(resolveConcurrency({ method: 'POST', path: '/v1/messages', ip, apiKey: apiKey(), account: account('free') }, config)).toEqual({ max: 2, ttlMs: 600_000, key: 'k:key1:gen' });
    expect(resolveConcurrency({ method: 'POST', path: '/v1/messages', ip, account: account('free') }, config)).toEqual({ max: 2, ttlMs: 600_000, key: 'u:acc1:slots' });
    expect(resolveConcurrency({ method: 'POST', path: '/v1/messages', ip, account: account('pro') }, config)).toMatchObject({ max: 20 });
    expect(resolveConcurrency({ method: 'POST', path: '/v1/messages', ip, apiKey: apiKey() }, config)).toMatchObject({ max: 10, key: 'k:key1:gen' });
  });

  it('never counts slots under a rate-limit window\'s key (the tier RPM window is `u:<account>:gen`)', () => {
    for (const subject of [
      { method: 'POST', path: '/v1/messages', ip, account: account('free') },
      { method: 'POST', path: '/v1/messages', ip, apiKey: apiKey(), account: account('pro') },
      { method: 'POST', path: '/v1/messages', ip, apiKey: apiKey() },
      { method: 'POST', path: '/v1/messages', ip },
    ] satisfies LimitSubject[]) {
      expect(resolveConcurrency(subject, config)!.key).not.toBe(resolveLimit(subject, config)?.key);
    }
  });

  it('leaves other endpoints and unlimited tiers alone; enterprise gets 1,000 slots by default', () => {
    expect(resolveConcurrency({ method: 'POST', path: '/v1/messages', ip, account: account('enterprise') }, config)).toMatchObject({ max: 1_000 });
    const open = rateLimitConfigSchema.parse({ concurrency: { tiers: { enterprise: null } } });
    expect(resolveConcurrency({ method: 'POST', path: '/v1/messages', ip, account: account('enterprise') }, open)).toBeNull();
    expect(resolveConcurrency({ method: 'POST', path: '/v1/files', ip, account: account('free') }, config)).toBeNull();
  });
});
