const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random id with a prefix, e.g. `generateId('chatcmpl-')`, `generateId('toolu_')`. */
export function generateId(prefix: string, size = 24): string {
  const bytes = crypto.getRandomValues(new Uint8Array(size));
  let out = prefix;
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** Unix seconds now (the `created` of Chat objects). */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * The id a client of a format sees for an upstream id: the format's prefix (`msg_`, `chatcmpl-`,
 * `resp_`) before the upstream id, so SDKs and logs see the id shape they expect while the
 * upstream id stays readable in it. An id that already has the prefix is kept as is.
 */
export function prefixedId(prefix: string, id: string | undefined): string {
  if (!id) return generateId(prefix);
  if (id.startsWith(prefix)) return id;
  const clean = id.replace(/[^A-Za-z0-9_-]/g, '');
  return clean.length > 0 ? prefix + clean : generateId(prefix);
}
