import { describe, expect, it } from 'vitest';
import { findTooDeepField, isTooDeep, MAX_JSON_DEPTH } from '../../src/util/json-depth.ts';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('JSON depth', () => {
  it('counts the value itself as level 1, objects and arrays alike', () => {
    expect(isTooDeep('x', 0)).toBe(false);
    expect(isTooDeep({}, 1)).toBe(false);
    expect(isTooDeep({ a: [] }, 1)).toBe(true);
    expect(isTooDeep({ a: [] }, 2)).toBe(false);
    expect(isTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(isTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('walks siblings and deep branches anywhere in the value', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [{}, {}, { deep: nested(70) }] };
    expect(isTooDeep(body)).toBe(true);
    expect(findTooDeepField(body)).toBe('tools');
    expect(findTooDeepField({ model: 'm', extra: nested(MAX_JSON_DEPTH - 1) })).toBeUndefined();
    expect(findTooDeepField({ model: 'm', extra: nested(MAX_JSON_DEPTH) })).toBe('extra');
  });

  it('never recurses: a million levels (as JSON.parse builds them) are answered without a stack overflow', () => {
    const depth = 1_000_000;
    const value = JSON.parse(`{"parameters":${'['.repeat(depth)}${']'.repeat(depth)}}`) as Record<string, unknown>;
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(findTooDeepField(value)).toBe('parameters');
  });

  it('answers each walk alone: one that stopped early or grew wide leaves nothing the next one sees', () => {
    const wide = { a: Array.from({ length: 5_000 }, () => ({ b: [nested(3)] })) };
    expect(isTooDeep(nested(MAX_JSON_DEPTH + 5))).toBe(true);
    expect(isTooDeep({ a: {} }, 2)).toBe(false);
    expect(isTooDeep(wide, 7)).toBe(false);
    expect(isTooDeep(wide, 6)).toBe(true);
    expect(isTooDeep([[], {}], 2)).toBe(false);
    expect(findTooDeepField({ model: 'm', messages: [{ content: 'x' }], tools: [nested(MAX_JSON_DEPTH)] })).toBe('tools');
    expect(isTooDeep({ model: 'm' }, 1)).toBe(false);
  });

  it('reads a __proto__ key as the plain field JSON.parse makes of it', () => {
    const value = JSON.parse(`{"__proto__":${'['.repeat(100)}${']'.repeat(100)}}`) as Record<string, unknown>;
    expect(findTooDeepField(value)).toBe('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
