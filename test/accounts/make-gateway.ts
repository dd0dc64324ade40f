import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGateway, type Gateway } from '../../src/app/create-gateway.ts';
import { createAccount, createKey, type CreateKeyInput } from '../../src/admin/accounts.ts';
import { parseConfig } from '../../src/config/index.ts';
import type { Tier } from '../../src/store/types.ts';
import type { Clock } from '../../src/util/clock.ts';
import { createLogger } from '../../src/util/logger.ts';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** A gateway composed in-process over a fresh data dir, called through `app.fetch`. */
export interface TestGateway {
  gateway: Gateway;
  dataDir: string;
  /** Sends a request to the app (no socket); `ip` is the client address it sees. */
  fetch(pathname: string, init?: RequestInit & { ip?: string }): Promise<Response>;
  /** Creates an account with a key; returns the key secret and the ids. */
  account(options?: { email?: string; password?: string; tier?: Tier; credits?: number; rpm?: number; key?: Omit<CreateKeyInput, 'account'> }): Promise<{ key: string; accountId: string; keyId: string }>;
  close(): Promise<void>;
}

let seq = 0;

/** Builds a gateway with the mock provider (plus `config`) in a temp data dir. */
export async function makeGateway(config: Record<string, unknown> = {}, options: { clock?: Clock; dataDir?: string; adminToken?: string } = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gw-acct-'));
  const parsed = parseConfig({ providers: { mock: { plugin: 'mock' } }, ...config });
  const gateway = await createGateway({ config: parsed, configDir: REPO_ROOT, dataDir, log: createLogger('silent'), clock: options.clock, adminToken: options.adminToken });
  const { store, clock } = gateway.deps;
  return {
    gateway,
    dataDir,
    fetch(pathname, init = {}) {
      const { ip, ...rest } = init;
      const request = new Request(`http://gateway.test${pathname}`, rest);
      if (ip) Object.defineProperty(request, 'ip', { value: ip });
      return Promise.resolve(gateway.app.fetch(request));
    },
    async account(o = {}) {
      const account = await createAccount(store, clock, {
        email: o.email ?? `user${++seq}-${Date.now()}@example.test`,
        password: o.password,
        tier: o.tier ?? 'pro',
        credits: o.credits ?? 1_000_000,
      });
      const { key, record } = await createKey(store, clock, { account: account.email, rpm: o.rpm, ...o.key });
      return { key, accountId: account.id, keyId: record.id };
    },
    async close() {
      await gateway.close();
    },
  };
}

/** JSON POST init with a bearer token. */
export function post(body: unknown, token?: string, extra: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra },
    body: JSON.stringify(body),
  };
}

/** GET init with a bearer token. */
export function get(token?: string): RequestInit {
  return { method: 'GET', headers: token ? { authorization: `Bearer ${token}` } : {} };
}
