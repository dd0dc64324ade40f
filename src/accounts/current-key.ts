import type { Store } from '../store/index.ts';
import type { ApiKeyRecord } from '../store/index.ts';

/** The key's stored record now (an operator may have changed its scope or limit since authentication). */
export function currentKey(store: Store, key: ApiKeyRecord): ApiKeyRecord {
  return store.cache.keyByHash(key.hash) ?? key;
}
