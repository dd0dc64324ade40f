import { describe, expect, it } from 'vitest';

import { SlidingLog } from '../../src/limits/index.ts';

/** The plain model: every hit's timestamp in a list, oldest first. */
class ListLog {
  hits: number[] = [];
  prune(cutoff: number): void {
    while (this.hits.length > 0 && this.hits[0] <= cutoff) this.hits.shift();
  }
  push(t: number): void {
    const last = this.hits.at(-1);
    this.hits.push(last !== undefined && t < last ? last : t);
  }
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SlidingLog: runs of equal milliseconds, exact', () => {
  it.each([1, 2, 3])('matches a list of every hit through pushes (many in one ms, clock steps back), prunes and reads (seed %i)', (seed) => {
    const next = random(seed);
    const log = new SlidingLog(1);
    const model = new ListLog();
    let now = 1_000_000;
    for (let step = 0; step < 20_000; step++) {
      const r = next();
      if (r < 0.6) {
        // Several hits share a millisecond; now and then the clock steps back.
        now += r < 0.3 ? 0 : r < 0.55 ? Math.floor(next() * 5) : -Math.floor(next() * 3);
        log.push(now);
        model.push(now);
      } else if (r < 0.8) {
        const cutoff = now - 20 - Math.floor(next() * 40);
        log.prune(cutoff);
        model.prune(cutoff);
      }
      expect(log.size).toBe(model.hits.length);
      expect(log.newest()).toBe(model.hits.at(-1));
      if (model.hits.length > 0) {
        const i = Math.floor(next() * model.hits.length);
        expect(log.at(i)).toBe(model.hits[i]);
        expect(log.at(0)).toBe(model.hits[0]);
      }
    }
  });

  it('holds one slot per distinct millisecond, not per hit', () => {
    const log = new SlidingLog(4);
    for (let ms = 0; ms < 100; ms++) for (let k = 0; k < 1_000; k++) log.push(5_000 + ms);
    expect(log.size).toBe(100_000);
    expect(log.runCount).toBe(100);
    log.prune(5_049);
    expect(log.size).toBe(50_000);
    expect(log.runCount).toBe(50);
    expect(log.at(0)).toBe(5_050);
    expect(log.at(1_000)).toBe(5_051);
  });
});
