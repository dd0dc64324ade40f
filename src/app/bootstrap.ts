import { createKey } from '../admin/accounts.ts';
import type { Store } from '../store/repositories.ts';
import type { Clock } from '../util/clock.ts';

/** On an empty data dir: the local default account and its first key (returned once, to print). */
export async function bootstrapDataDir(store: Store, clock: Clock): Promise<{ email: string; key: string } | undefined> {
  if ((await store.accounts.list()).length > 0) return undefined;
  const { key, account } = await createKey(store, clock, { name: 'first key' });
  await store.flush();
  return { email: account.email, key };
}
