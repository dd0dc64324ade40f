import { createKey } from '../admin/index.ts';
import type { Store } from '../store/index.ts';
import type { Clock } from '../util/index.ts';

/** A claim that never comes round again (a century). */
const BOOTSTRAP_ONCE_MS = 100 * 365 * 86_400_000;

/**
 * On an empty data dir: the local default account and its first key (returned once, to print).
 * Called only once the port is bound, so a failed start leaves no key nobody saw.
 */
export async function bootstrapDataDir(store: Store, clock: Clock): Promise<{ email: string; key: string } | undefined> {
  if ((await store.accounts.list()).length > 0) return undefined;
  // Instances starting together on one empty database: one of them creates it (claimed once for
  // the database's lifetime), the others start without printing a key.
  if (store.claimJob && !(await store.claimJob('bootstrap-first-key', BOOTSTRAP_ONCE_MS))) return undefined;
  const { key, account } = await createKey(store, clock, { name: 'first key' });
  await store.flush();
  return { email: account.email, key };
}

/** Whether any key of the data dir can still authenticate (not revoked, not expired). */
export async function hasUsableKey(store: Store, clock: Clock): Promise<boolean> {
  const now = clock.now();
  return (await store.keys.list()).some((k) => k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now));
}
