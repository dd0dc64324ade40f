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
