import { distance } from 'fastest-levenshtein';

/**
 * The known key a misspelt `key` most likely meant (`provders` → `providers`, `prot` → `port`,
 * `baseUrl` → `baseURL`), or undefined when none is close enough to be a typo.
 */
export function suggestKey(key: string, known: Iterable<string>): string | undefined {
  const lower = key.toLowerCase();
  const limit = Math.max(2, Math.floor(key.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit && bestDistance < key.length ? best : undefined;
}

/**
 * `unknown key "server.prot" — did you mean "server.port"?`, or the list of known keys when
 * nothing is close. `at` is the dotted path of the object holding the key ('' at the root).
 */
export function describeUnknownKey(at: string, key: string, known: readonly string[]): string {
  const full = (k: string) => (at ? `${at}.${k}` : k);
  const suggestion = suggestKey(key, known);
  if (suggestion) return `unknown key "${full(key)}" — did you mean "${full(suggestion)}"?`;
  return `unknown key "${full(key)}" (${at ? `"${at}" takes` : 'known keys'}: ${known.join(', ')})`;
}
