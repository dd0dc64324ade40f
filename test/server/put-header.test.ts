import { describe, expect, it } from 'vitest';
import { putHeader } from '../../src/server/context.ts';
import { seededRandom as random } from '../helpers/seeded-random.ts';

/** What putHeader must do with a name: replace a name of the same length that lowercases to the same text, else add it. */
function expected(head: string[], name: string, value: string): string[] {
  const out = [...head];
  for (let i = 0; i < out.length; i += 2) {
    if (out[i].length === name.length && out[i].toLowerCase() === name.toLowerCase()) {
      out[i] = name;
      out[i + 1] = value;
      return out;
    }
  }
  out.push(name, value);
  return out;
}

const RATE_LIMIT_NAMES = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Used', 'X-RateLimit-Resource', 'X-Request-Priority', 'X-Concurrency-Remaining'];
const OTHER_NAMES = ['x-request-id', 'content-type', 'content-length', 'x-routing-mode', 'x-routing-resolved-model', 'x-routing-attempts', 'x-routing-strategy', 'X-Fallback-Used'];
/** Characters whose case folding is not ASCII's: the Kelvin sign lowercases to `k`, the dotted capital I to two code units, `ſ` not at all. */
const ODD = ['\u212a', 'k', 'K', '\u0130', 'i', 'I', '\u017f', 's', 'S', 'é', 'É', '-', '_', '\u00ff', '\u0178'];

describe('putHeader', () => {
  it('replaces a name set again in another case in place, and adds every other name at the end', () => {
    const head: string[] = [];
    for (const name of [...OTHER_NAMES, ...RATE_LIMIT_NAMES]) putHeader(head, name, '1');
    putHeader(head, 'x-ratelimit-reset', '2');
    putHeader(head, 'X-REQUEST-ID', '3');
    putHeader(head, 'X-RateLimit-Reset-After', '4');
    expect(head.filter((_, i) => i % 2 === 0)).toEqual([
      'X-REQUEST-ID',
      ...OTHER_NAMES.slice(1),
      ...RATE_LIMIT_NAMES.slice(0, 2),
      'x-ratelimit-reset',
      ...RATE_LIMIT_NAMES.slice(3),
      'X-RateLimit-Reset-After',
    ]);
    expect(head[0 * 2 + 1]).toBe('3');
    expect(head[(OTHER_NAMES.length + 2) * 2 + 1]).toBe('2');
    expect(head.at(-1)).toBe('4');
  });

  it('treats two names as one header exactly when they are as long and lowercase to the same text, for 20,000 random pairs', () => {
    const next = random(17);
    const pick = (from: readonly string[]) => from[Math.floor(next() * from.length)];
    const variant = (name: string): string => {
      let out = '';
      for (const c of name) {
        const r = next();
        out += r < 0.3 ? c.toUpperCase() : r < 0.6 ? c.toLowerCase() : r < 0.65 ? pick(ODD) : c;
      }
      return out;
    };
    const wrong: string[] = [];
    for (let n = 0; n < 20_000; n += 1) {
      const base = pick([...RATE_LIMIT_NAMES, ...OTHER_NAMES, ...ODD]);
      const head: string[] = [];
      const count = Math.floor(next() * 4);
      for (let i = 0; i < count; i += 1) {
        const name = variant(pick([base, ...RATE_LIMIT_NAMES]));
        const want = expected(head, name, String(i));
        putHeader(head, name, String(i));
        if (JSON.stringify(head) !== JSON.stringify(want)) wrong.push(JSON.stringify(name));
      }
      const name = variant(base);
      const want = expected(head, name, 'last');
      putHeader(head, name, 'last');
      if (JSON.stringify(head) !== JSON.stringify(want)) wrong.push(`${JSON.stringify(name)} into ${JSON.stringify(head)}`);
    }
    expect(wrong).toEqual([]);
  });
});
