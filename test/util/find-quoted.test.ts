import { describe, expect, it } from 'vitest';
import { quotedByteFinder, quotedFinder } from '../../src/util/find-quoted.ts';

describe('quotedFinder', () => {
  it('answers what indexOf answers, from any start', () => {
    const texts = [
      '{"usage":{"prompt_tokens":1},"choices":[]}',
      '{"x":"usage","usage":null}',
      'usage" "usage"',
      '""usage""',
      '{"a":"\\"usage\\""}',
      'no match here',
      '"usage"',
      '',
    ];
    for (const pattern of ['"usage"', '"usage":{', '"choices":[]', '"finish_reason"', 'usage', '"']) {
      const find = quotedFinder(pattern);
      for (const text of texts) {
        for (let from = 0; from <= text.length + 1; from += 1) expect(find(text, from), `${pattern} in ${text} from ${from}`).toBe(text.indexOf(pattern, from));
      }
    }
  });

  it('agrees with indexOf on random JSON-like text', () => {
    const alphabet = ['"', 'u', 's', 'a', 'g', 'e', ':', '{', ' '];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const find = quotedFinder('"usage"');
    for (let n = 0; n < 2000; n += 1) {
      let text = '';
      for (let i = next() % 40; i > 0; i -= 1) text += alphabet[next() % alphabet.length];
      expect(find(text)).toBe(text.indexOf('"usage"'));
    }
  });
});

describe('quotedByteFinder', () => {
  it('answers what Buffer#indexOf answers, from any start, multi-byte characters included', () => {
    const texts = ['{"usage":{"prompt_tokens":1},"choices":[]}', 'usage" "usage"', '""usage""', '{"a":"\\"usage\\""}', '{"é":"🦊","usage":1}', '"usage"', ''];
    for (const pattern of ['"usage"', '"usage":{', 'usage', '"']) {
      const find = quotedByteFinder(pattern);
      for (const text of texts) {
        const bytes = Buffer.from(text);
        for (let from = 0; from <= bytes.length + 1; from += 1) expect(find(bytes, from), `${pattern} in ${text} from ${from}`).toBe(bytes.indexOf(pattern, from));
      }
    }
  });
});
