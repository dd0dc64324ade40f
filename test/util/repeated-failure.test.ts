import { describe, expect, it } from 'vitest';
import { RepeatedFailure } from '../../src/util/index.ts';

describe('RepeatedFailure', () => {
  it('says to log the first failure of a run, then one per interval, and counts the run', () => {
    const f = new RepeatedFailure(60_000);
    const logged = [0, 500, 1_000, 59_999, 60_000, 60_500, 120_000].map((at) => f.failed(at));
    expect(logged).toEqual([true, false, false, false, true, false, true]);
    expect(f.count).toBe(7);
    expect(f.succeeded()).toBe(7);
    expect(f.succeeded()).toBe(0);
    // A new run logs its first failure at once.
    expect(f.failed(120_500)).toBe(true);
  });
});
