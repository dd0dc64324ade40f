import { describe, expect, it } from 'vitest';
import { encodeLedgerLine } from '../../../src/store/file/encode-ledger-line.ts';
import { seededRandom as random } from '../../helpers/seeded-random.ts';

const NASTY_TEXT = ['', 'req_abc', 'openai/gpt-4o-mini', '/v1/chat/completions', 'a"b', 'back\\slash', 'tab\there', 'nl\nx', '\u0000', '\u001f', '\u007f', 'é', 'naïve', '日本', '😀', '\ud800', 'x\udc00y', '\u2028\u2029', '</script>', '{"seq":1}', ' ~!#$%&\'()*+,-./:;<=>?@[]^_`{|}'];
const NUMBERS = [0, -0, 1, -1, 42, 1.5, 0.000312, 1 / 3, 1e21, 1e-7, -1e-7, 5e-324, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, NaN, Infinity, -Infinity];
const EXTRA_KEYS = ['lease', 'holder', 'discount', 'price_multiplier', 'web_search_requests', 'media', '1', '02', 'a"b', 'k\\', 'ключ', 'x\ny', 'toString', 'constructor'];

function pick<T>(next: () => number, from: readonly T[]): T {
  return from[Math.floor(next() * from.length)];
}

/** Any value a line's field could hold, now and then one JSON treats specially. */
function value(next: () => number, depth = 0): unknown {
  const r = next();
  if (r < 0.3) return next() < 0.5 ? pick(next, NASTY_TEXT) : `id_${Math.floor(next() * 1e9).toString(36)}`;
  if (r < 0.6) return next() < 0.5 ? pick(next, NUMBERS) : Math.round(next() * 1e6) / 1e6;
  if (r < 0.7) return next() < 0.5;
  if (r < 0.78) return undefined;
  if (r < 0.82) return null;
  if (r < 0.9 && depth < 2) return { images: value(next, depth + 1), providerUsd: value(next, depth + 1), [pick(next, EXTRA_KEYS)]: value(next, depth + 1) };
  if (r < 0.93 && depth < 2) return [value(next, depth + 1), value(next, depth + 1)];
  if (r < 0.95) return new Date(Math.floor(next() * 2e12));
  if (r < 0.97) return () => 'a function';
  if (r < 0.99) return Symbol('s');
  return { toJSON: (key: string) => `seen as ${key}` };
}

/** A ledger line as the credit engines hand it over: its fields in their order, optional ones set or not, seq put on last. */
function entry(next: () => number, seq: number): { seq: number } {
  const e: Record<string, unknown> = {
    ts: 1_764_450_000_000 + Math.floor(next() * 1e9),
    request_id: next() < 0.8 ? `req_${Math.floor(next() * 1e12).toString(16)}` : value(next),
    account_id: next() < 0.9 ? 'acct_9f8e7d6c5b4a' : value(next),
    key_id: 'key_0a1b2c3d4e5f',
    model: next() < 0.9 ? 'openai/gpt-4o-mini' : value(next),
    provider: 'openai',
    endpoint: '/v1/chat/completions',
    input_tokens: Math.floor(next() * 10_000),
    output_tokens: next() < 0.9 ? Math.floor(next() * 10_000) : value(next),
    reasoning_tokens: 0,
    cached_tokens: 0,
    cost_credits: next() < 0.9 ? Math.round(next() * 1e6) / 1e6 : value(next),
    charged_credits: Math.round(next() * 1e6) / 1e6,
    estimated: next() < 0.5,
    aborted: next() < 0.1,
  };
  const extras = Math.floor(next() * 4);
  for (let i = 0; i < extras; i++) e[pick(next, EXTRA_KEYS)] = value(next);
  // Numbered in place, as UsageLedger does: seq is then the object's last key.
  e.seq = seq;
  return e as { seq: number };
}

/** What JSON.stringify makes of it, or the error it throws. */
function stringified(e: object): { text?: string; error?: string } {
  try {
    return { text: JSON.stringify(e) };
  } catch (error) {
    return { error: String(error) };
  }
}

describe('encodeLedgerLine', () => {
  it('parses to what JSON.stringify of the entry parses to, on one line ending in one newline, for 10,000 random entries', () => {
    const next = random(21);
    let plain = 0;
    for (let i = 1; i <= 10_000; i++) {
      const e = entry(next, i);
      const expected = stringified(e);
      if (expected.error) {
        expect(() => encodeLedgerLine(e), `entry ${i}`).toThrow();
        continue;
      }
      const line = encodeLedgerLine(e);
      expect(line.indexOf('\n'), `entry ${i}: ${line}`).toBe(line.length - 1);
      expect(JSON.parse(line), `entry ${i}: ${line}`).toEqual(JSON.parse(expected.text!));
      // And byte for byte what the ledger wrote before (a copy with seq first through JSON.stringify), but where
      // the entry has integer-like keys: an object lists those first, while the line keeps seq first.
      if (!Object.keys(e).some((k) => /^(?:0|[1-9]\d*)$/.test(k))) expect(line, `entry ${i}`).toBe(`${JSON.stringify({ seq: e.seq, ...(e as object) })}\n`);
      if (line.startsWith('{"seq":')) plain += 1;
    }
    // Most lines took the hand-built path (a guard that the generator does not only make odd ones).
    expect(plain).toBeGreaterThan(5_000);
  });

  it('writes an ordinary line exactly as JSON.stringify did, seq first', () => {
    const e = { ts: 1, request_id: 'req_1', account_id: 'acct_a', cost_credits: 0.000312, estimated: false, discount: undefined, seq: 7 };
    expect(encodeLedgerLine(e)).toBe('{"seq":7,"ts":1,"request_id":"req_1","account_id":"acct_a","cost_credits":0.000312,"estimated":false}\n');
  });

  it('leaves non-finite numbers as null and escapes what JSON escapes', () => {
    const e = { seq: 1, a: NaN, b: -Infinity, c: -0, d: 'say "hi"\n', e: '\ud800', f: 'é' };
    const line = encodeLedgerLine(e);
    expect(line).toBe(`${JSON.stringify(e)}\n`);
    expect(JSON.parse(line)).toEqual({ seq: 1, a: null, b: null, c: 0, d: 'say "hi"\n', e: '\ud800', f: 'é' });
  });

  it('gives a toJSON (of the entry or of a value) and inherited keys what JSON.stringify gives them', () => {
    const withValueToJson = { seq: 2, when: new Date(0), x: { toJSON: (key: string) => `key ${key}` } };
    expect(encodeLedgerLine(withValueToJson)).toBe(`${JSON.stringify(withValueToJson)}\n`);
    const own = { seq: 3, toJSON: () => ({ replaced: true }) };
    expect(encodeLedgerLine(own)).toBe('{"replaced":true}\n');
    const inherited = Object.assign(Object.create({ inherited: 1 }) as object, { seq: 4, own: 'x' });
    expect(encodeLedgerLine(inherited)).toBe('{"seq":4,"own":"x"}\n');
    const bare = Object.assign(Object.create(null) as object, { seq: 5, k: 'v' });
    expect(encodeLedgerLine(bare)).toBe('{"seq":5,"k":"v"}\n');
  });

  it('throws where JSON.stringify throws (a bigint)', () => {
    expect(() => encodeLedgerLine({ seq: 1, n: 1n } as { seq: number })).toThrow(TypeError);
  });
});
