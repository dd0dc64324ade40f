import { describe, expect, it } from 'vitest';
import { andThen, isPromise } from '../../src/util/index.ts';

describe('andThen', () => {
  it('calls fn at once for a plain value (same turn, no promise) and after a promise resolves', async () => {
    const order: string[] = [];
    const now = andThen(2, (n) => (order.push('now'), n * 10));
    expect(now).toBe(20);
    const later = andThen(Promise.resolve(3), (n) => (order.push('later'), n * 10));
    order.push('after');
    expect(isPromise(later)).toBe(true);
    expect(await later).toBe(30);
    expect(order).toEqual(['now', 'after', 'later']);
  });

  it('throws what fn throws for a plain value, and rejects with it for a promise', async () => {
    const boom = () => {
      throw new Error('boom');
    };
    expect(() => andThen(1, boom)).toThrow('boom');
    await expect(andThen(Promise.resolve(1), boom)).rejects.toThrow('boom');
  });

  it('tells a promise (or any thenable) from a value', () => {
    expect(isPromise(Promise.resolve(1))).toBe(true);
    expect(isPromise({ then: () => undefined })).toBe(true);
    expect(isPromise(null)).toBe(false);
    expect(isPromise({ then: 1 })).toBe(false);
  });
});
