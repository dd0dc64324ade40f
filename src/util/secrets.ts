import { createHash, randomBytes, randomFillSync, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Random bytes are drawn from the CSPRNG 4 KB at a time and each byte is used once: a
// `randomBytes` call per token cost more than the rest of a request id (10–16 µs).
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;
const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');
let scratch = Buffer.allocUnsafe(64);

/** Random base62 text of `length` characters (rejection sampling keeps it unbiased). */
export function randomToken(length: number): string {
  if (scratch.length < length) scratch = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    if (poolOffset === pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    const byte = pool[poolOffset++];
    if (byte < 248) scratch[filled++] = ALPHABET_CODES[byte % 62];
  }
  return scratch.toString('latin1', 0, length);
}

/** A new API key: `sk-gw-` and 40 base62 characters (~238 bits). */
export function generateApiKey(): string {
  return `sk-gw-${randomToken(40)}`;
}

/** A new dashboard session token (not an `sk-` key, so the two can never be confused). */
export function generateSessionToken(): string {
  return `gws_${randomToken(43)}`;
}

/** sha256 hex; enough for high-entropy secrets such as keys and session tokens. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A display form of a key: prefix, an ellipsis and the last four characters. */
export function maskKey(key: string): string {
  return `${key.slice(0, 9)}…${key.slice(-4)}`;
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/** Hashes a password with scrypt (a slow, memory-hard KDF). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Checks a password against a stored scrypt hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'scrypt' || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A prefixed random id such as `key_3fZ…`. */
export function newId(prefix: string, length = 20): string {
  return `${prefix}_${randomToken(length)}`;
}
