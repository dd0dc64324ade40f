import { describe, expect, it } from 'vitest';
import { LineGate } from '../../src/batches/line-gate.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('LineGate: batch line slots below live traffic', () => {
  it('runs at most `concurrency` lines, shared by every caller, first come first served', async () => {
    const gate = new LineGate(2);
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const take = (n: number) => gate.acquire().then((release) => (order.push(n), releases.push(release)));
    void take(1);
    void take(2);
    void take(3);
    void take(4);
    await tick();
    await tick();
    expect(order).toEqual([1, 2]);
    expect(gate.inUse).toBe(2);
    releases[0]();
    releases[0]();
    await tick();
    expect(order).toEqual([1, 2, 3]);
    expect(gate.inUse).toBe(2);
    releases[1]();
    await tick();
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('gives one slot up for each live request in flight, never the last one', async () => {
    let live = 0;
    const gate = new LineGate(4, () => live);
    expect(gate.allowed()).toBe(4);
    live = 3;
    expect(gate.allowed()).toBe(1);
    live = 50;
    expect(gate.allowed()).toBe(1);
    const first = await gate.acquire();
    let second = false;
    void gate.acquire().then(() => (second = true));
    await tick();
    await tick();
    expect(second).toBe(false);
    // Live traffic gone: the next release lets the waiting line in, and room is left for two more.
    live = 0;
    first();
    await tick();
    expect(second).toBe(true);
    expect(gate.allowed() - gate.inUse).toBe(3);
  });
});
