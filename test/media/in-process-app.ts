import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { H3 } from 'h3';
import { createKey } from '../../src/admin/accounts.ts';
import { configSchema, type GatewayConfigInput } from '../../src/config/schema.ts';
import { createGateway } from '../../src/app/create-gateway.ts';
import type { ServerDeps } from '../../src/server/types.ts';
import type { Clock } from '../../src/util/clock.ts';
import { createLogger } from '../../src/util/logger.ts';
import { generateSessionToken, newId, sha256 } from '../../src/util/secrets.ts';

/** A clock tests can move. */
export class TestClock implements Clock {
  constructor(public ms = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface InProcessGateway {
  app: H3;
  deps: ServerDeps;
  clock: TestClock;
  dataDir: string;
  apiKey: string;
  accountId: string;
  request(pathname: string, init?: RequestInit): Promise<Response>;
  /** A dashboard session token for a (new or existing) account. */
  session(accountId?: string): Promise<{ token: string; accountId: string }>;
  close(): Promise<void>;
}

/** The gateway's h3 app in-process, over a fresh data dir, with a movable clock. */
export async function inProcessGateway(config: GatewayConfigInput = { providers: { mock: { plugin: 'mock' } } }): Promise<InProcessGateway> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-media-'));
  const parsed = configSchema.parse(config);
  const clock = new TestClock();
  const gateway = await createGateway({ config: parsed, configDir: process.cwd(), dataDir, log: createLogger('silent'), clock });
  const { app, deps } = gateway;
  const store = deps.store;
  const { key, account } = await createKey(store, clock, { name: 'test' });
  const session = async (accountId?: string) => {
    let id = accountId;
    if (!id) {
      id = newId('acct');
      await store.accounts.create({ id, email: `${id}@example.test`, passwordHash: null, tier: 'free', credits: 0, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: clock.now() });
    }
    const token = generateSessionToken();
    await store.sessions.create({ id: newId('sess'), accountId: id, hash: sha256(token), createdAt: clock.now(), expiresAt: clock.now() + 365 * 86_400_000 });
    return { token, accountId: id };
  };
  return {
    app,
    deps,
    clock,
    dataDir,
    apiKey: key,
    accountId: account.id,
    request: (pathname, init) => Promise.resolve(app.fetch(new Request(`http://gateway.test${pathname}`, init))),
    session,
    async close() {
      await gateway.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
