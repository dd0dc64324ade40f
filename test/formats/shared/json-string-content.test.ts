import { describe, expect, it } from 'vitest';
import { jsonStringContent } from '../../../src/formats/shared/index.ts';
import { seededRandom } from '../../helpers/seeded-random.ts';

/** What a text may hold that JSON.stringify treats apart: quotes, backslashes, control characters, surrogates (lone and paired), non-ASCII. */
const PIECES = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u001f', '\u007f', 'é', '中', '\u2028', '\u2029', '\ud83d\ude00', '\ud83d', '\ude00', '\udbff', '\udc00', '\ufffd', '\\u0041', '}}', '{"a":1}'];

function randomText(next: () => number): string {
  // Lengths on both sides of the length checked by hand (256).
  const pieces = Math.floor(next() * (next() < 0.2 ? 400 : 12));
  const plain = next() < 0.5;
  let text = '';
  for (let i = 0; i < pieces; i += 1) text += plain ? PIECES[Math.floor(next() * 3)] : PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

/** A string as a template writes it with jsonStringContent. */
const jsonString = (text: string): string => `"${jsonStringContent(text)}"`;

describe('jsonStringContent', () => {
  it('writes every text as JSON.stringify does (random texts with quotes, backslashes, control characters, lone surrogates, non-ASCII)', () => {
    const next = seededRandom(21);
    for (let i = 0; i < 5_000; i += 1) {
      const text = randomText(next);
      expect(jsonString(text), JSON.stringify(text)).toBe(JSON.stringify(text));
    }
  });

  it('writes every single UTF-16 code unit as JSON.stringify does', () => {
    for (let c = 0; c <= 0xffff; c += 1) {
      const text = `a${String.fromCharCode(c)}b`;
      if (jsonString(text) !== JSON.stringify(text)) expect.fail(`U+${c.toString(16)}: ${jsonString(text)} is not ${JSON.stringify(text)}`);
    }
  });

  it('writes the edge cases as JSON.stringify does', () => {
    for (const text of ['', '"', '\\', '\ud800', 'x\udfff', '\ud83d\ude00', 'a'.repeat(256), `${'a'.repeat(255)}"`, `${'a'.repeat(256)}"`, 'é'.repeat(300)]) {
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }
  });
});
