/**
 * The incremental JSON parser of large bodies builds exactly what JSON.parse builds, whatever
 * the chunking, refuses exactly what it refuses (400), and stops at its value and depth bounds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonStreamParser } from '../../src/server/json-stream-parser.ts';
import { GatewayError } from '../../src/errors/index.ts';

function parseInChunks(bytes: Buffer, cuts: number[], maxValues = 1e9, maxDepth = 64): unknown {
  const parser = new JsonStreamParser(maxValues, maxDepth);
  let from = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    const chunk = bytes.subarray(from, cut);
    let at = 0;
    // Deadline already passed: the parser must still make progress and resume where it stopped.
    while (at < chunk.length) at = parser.feed(chunk, at, at % 3 === 0 ? -1 : Infinity);
    from = cut;
  }
  return parser.finish();
}

function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() };
  } catch (error) {
    return { failed: error instanceof GatewayError ? error.status : String(error) };
  }
}

const reference = (bytes: Buffer) =>
  outcome(() => {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new GatewayError('bad_request', 'not JSON');
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new GatewayError('bad_request', 'not an object');
    return value;
  });

const cutsArb = fc.array(fc.nat({ max: 400 }), { maxLength: 6 });

describe('JsonStreamParser', () => {
  it('builds what JSON.parse builds from any object, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 5 })), cutsArb, (value, cuts) => {
        const bytes = Buffer.from(JSON.stringify(value, null, cuts.length % 2 ? 1 : undefined));
        expect(parseInChunks(bytes, cuts)).toStrictEqual(JSON.parse(bytes.toString()));
      }),
      { numRuns: 400, seed: 27 },
    );
  });

  it('agrees with JSON.parse on valid and invalid text (unicode, escapes, numbers, cut JSON)', () => {
    const pieces = fc.constantFrom('{', '}', '[', ']', ',', ':', '"a"', '"\\u00e9\\ud83d"', '"é😀"', '1', '-0', '1e400', '01', '1.', '-', 'true', 'nul', ' ', '\n', '"\\x"', '"\u0001"', '"__proto__"', '{"__proto__":1}');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 14 }), cutsArb, (parts, cuts) => {
        const bytes = Buffer.from(`{"k":${parts.join('')}`);
        expect(outcome(() => parseInChunks(bytes, cuts))).toStrictEqual(reference(bytes));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('keeps a UTF-8 character cut between chunks whole, and invalid bytes as U+FFFD', () => {
    const bytes = Buffer.from('{"a":"é😀漢"}');
    for (let cut = 1; cut < bytes.length; cut += 1) expect(parseInChunks(bytes, [cut])).toStrictEqual({ a: 'é😀漢' });
    const invalid = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xe2, 0x82]), Buffer.from('\\n"}')]);
    expect(parseInChunks(invalid, [8])).toStrictEqual(JSON.parse(invalid.toString('utf8')));
  });

  it('makes __proto__ an own property, as JSON.parse does', () => {
    const parsed = parseInChunks(Buffer.from('{"__proto__":{"polluted":true}}'), []) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops at the value bound (413) and the depth bound (422 naming the field) before the end', () => {
    const many = Buffer.from(`{"a":[${'[],'.repeat(1000)}`);
    expect(outcome(() => parseInChunks(many, [], 500))).toEqual({ failed: 413 });
    const deep = Buffer.from(`{"model":"m","messages":${'['.repeat(70)}`);
    try {
      parseInChunks(deep, [30]);
      expect.unreachable();
    } catch (error) {
      expect((error as GatewayError).status).toBe(422);
      expect((error as GatewayError).details).toEqual({ fields: { messages: 'must not nest objects and arrays deeper than 64 levels' } });
    }
    const deepest = `{"a":${'['.repeat(63)}${']'.repeat(63)}}`;
    expect(parseInChunks(Buffer.from(deepest), [])).toEqual(JSON.parse(deepest));
  });
});
