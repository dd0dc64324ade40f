import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/**
 * A CommonJS package read the first time it is used, not when its importer is: the store's and
 * upstream's indexes are re-exported through every layer above them, so a static import would
 * make each CLI command on a data dir read pg and undici (a fifth of its start) for nothing.
 * The same module object an `import` of the package gives (its ESM face wraps this one).
 */
export function loadOnUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(name) as T);
}
