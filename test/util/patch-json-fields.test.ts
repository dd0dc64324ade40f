import { describe, expect, it } from 'vitest';
import { patchJsonFields } from '../../src/util/index.ts';

describe('patchJsonFields', () => {
  const text = '{ "model" : "m",\n "sig":"a\\u00e9\\"}b", "n": 1.50, "nested": {"model": "x", "s": "}"}, "list": [1, {"a": "]"}], "t": true }';

  it('removes and sets top-level fields and keeps every other byte', () => {
    const out = patchJsonFields(text, { anthropic_version: 'v1', n: 2 }, ['model'])!;
    expect(out).toBe('{ "sig":"a\\u00e9\\"}b", "n": 2, "nested": {"model": "x", "s": "}"}, "list": [1, {"a": "]"}], "t": true,"anthropic_version":"v1" }');
    expect(JSON.parse(out)).toEqual({ ...JSON.parse(text), model: undefined, n: 2, anthropic_version: 'v1' });
  });

  it('adds a field both removed and set last; a field set to undefined is removed', () => {
    expect(patchJsonFields('{"a":1,"b":2}', { a: 3, b: undefined }, ['a'])).toBe('{"a":3}');
    expect(patchJsonFields('{}', { a: [1] })).toBe('{"a":[1]}');
  });

  it('answers undefined for text that is not one JSON object', () => {
    for (const bad of ['[]', '"x"', '{"a":1', '{"a" 1}', '{"a":1} x', '{"a":"1}']) expect(patchJsonFields(bad, { b: 1 }), bad).toBeUndefined();
  });
});
