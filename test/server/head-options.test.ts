import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapDataDir } from '../../src/app/bootstrap.ts';
import { createGateway, type Gateway } from '../../src/app/create-gateway.ts';
import { parseConfig } from '../../src/config/index.ts';
import { buildRoutes } from '../../src/server/routes/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { REPO_ROOT, tempDir } from '../helpers/spawn-gateway.ts';

/** A concrete path for a route pattern. */
const concrete = (pattern: string) => pattern.replace(/:[a-z_]+/gi, 'x1').replace('**', 'mock/echo');

describe('HEAD and OPTIONS on every route (in-process)', () => {
  let gateway: Gateway;
  let key: string;

  beforeAll(async () => {
    gateway = await createGateway({ config: parseConfig({ providers: { mock: { plugin: 'mock' } } }), configDir: REPO_ROOT, dataDir: path.join(tempDir(), 'data'), log: createLogger('silent') });
    key = (await bootstrapDataDir(gateway.deps.store, gateway.deps.clock))!.key;
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('HEAD answers every GET route with the GET status and headers', async () => {
    const gets = buildRoutes(gateway.deps).filter((r) => r.method === 'GET' && !r.path.startsWith('/admin'));
    expect(gets.length).toBeGreaterThan(8);
    for (const route of gets) {
      const url = concrete(route.path);
      const get = await gateway.app.request(url, { headers: { authorization: `Bearer ${key}` } });
      const head = await gateway.app.request(url, { method: 'HEAD', headers: { authorization: `Bearer ${key}` } });
      expect({ url, status: head.status }).toEqual({ url, status: get.status });
      expect(head.status).not.toBe(405);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('x-request-id')).toMatch(/^req_/);
    }
  });

  it('OPTIONS on a known route is 204 with Allow; Allow on a 405 lists HEAD with GET', async () => {
    const options = await gateway.app.request('/v1/models', { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(options.headers.get('access-control-allow-origin')).toBeNull();
    const post = await gateway.app.request('/v1/models', { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await gateway.app.request('/v1/nothing', { method: 'OPTIONS' })).status).toBe(404);
  });
});
