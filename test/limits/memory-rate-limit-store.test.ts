import { describe, expect, it } from 'vitest';

import { MemoryRateLimitStore } from '../../src/limits/index.ts';
import { describeRateLimitStore } from './rate-limit-store.case.ts';

describeRateLimitStore('memory', () => new MemoryRateLimitStore(), 'at once');

describe('MemoryRateLimitStore', () => {
  it('drops idle keys and expired leases when it sweeps, keeping memory bounded', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore({ clock: () => now });
    for (let i = 0; i < 5_000; i++) await store.hit(`ip:${i}`, 10, 60_000);
    await store.hit('busy', 10, 120_000);
    await store.acquire('slots', 3, 60_000);
    expect(store.keyCount).toBe(5_002);
    now += 59_999;
    store.sweep();
    expect(store.keyCount).toBe(5_002);
    now += 1;
    store.sweep();
    // The 60 s windows and the 60 s lease are gone; the 120 s window is still live.
    expect(store.keyCount).toBe(1);
    expect(await store.hit('busy', 10, 120_000)).toMatchObject({ used: 2 });
    await store.close();
  });

  it('sweeps on its own timer', async () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ clock: () => now, sweepIntervalMs: 20 });
    await store.hit('k', 1, 100);
    now = 1_000;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(store.keyCount).toBe(0);
    await store.close();
  });

  it('keeps the log ordered when the clock steps back', async () => {
    const store = new MemoryRateLimitStore();
    await store.hit('k', 3, 1_000, 10_000);
    await store.hit('k', 3, 1_000, 9_000); // NTP stepped back: counted as 10 000
    await store.hit('k', 3, 1_000, 10_500);
    expect(await store.hit('k', 3, 1_000, 10_999)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    expect(await store.hit('k', 3, 1_000, 11_000)).toMatchObject({ allowed: true, used: 2 });
    await store.close();
  });

  it('handles a large limit through many ring-buffer wrap-arounds', async () => {
    const store = new MemoryRateLimitStore();
    let admitted = 0;
    for (let t = 0; t < 20_000; t++) if ((await store.hit('big', 1_000, 5_000, t)).allowed) admitted++;
    // 1 000 per 5 000 ms, hits every ms: the first 1 000 of each 5 s block get in.
    expect(admitted).toBe(4_000);
    await store.close();
  });
});
