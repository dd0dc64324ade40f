import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createGateway, type Gateway } from '../../../src/app/create-gateway.ts';
import { bootstrapDataDir } from '../../../src/app/bootstrap.ts';
import { parseConfig } from '../../../src/config/index.ts';
import { createLogger } from '../../../src/util/logger.ts';
import { REPO_ROOT, tempDir } from '../../helpers/spawn-gateway.ts';

/**
 * An in-process gateway serving only the `mock` provider for the enclosing suite (started in
 * beforeAll, closed in afterAll): `post` sends a JSON body with the gateway's first key.
 */
export function useMockGateway(): { post(route: string, body: unknown, headers?: Record<string, string>): Promise<Response> } {
  let gateway: Gateway;
  let key: string;
  beforeAll(async () => {
    gateway = await createGateway({ config: parseConfig({ providers: { mock: { plugin: 'mock' } } }), configDir: REPO_ROOT, dataDir: path.join(tempDir(), 'data'), log: createLogger('error', () => undefined) });
    key = (await bootstrapDataDir(gateway.deps.store, gateway.deps.clock))!.key;
  });
  afterAll(async () => {
    await gateway.close();
  });
  return {
    post: async (route, body, headers = {}) =>
      gateway.app.request(route, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
  };
}
