import { describe, expect, it } from 'vitest';
import { SerialTimer } from '../../src/util/index.ts';
import { until } from '../helpers/until.ts';

describe('SerialTimer', () => {
  it('never runs two passes at once; a call during a pass runs one more right after it', async () => {
    let passes = 0;
    let atOnce = 0;
    let most = 0;
    let release: (() => void) | undefined;
    const timer = new SerialTimer(async () => {
      passes++;
      most = Math.max(most, ++atOnce);
      if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
      atOnce--;
      return 60_000;
    });
    timer.now();
    await until('the first pass', async () => (release ? true : undefined));
    timer.now();
    timer.now();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(passes).toBe(1);
    release!();
    await until('the pass asked for during the first', async () => (passes === 2 ? true : undefined));
    expect(most).toBe(1);
    timer.stop();
    timer.now();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(passes).toBe(2);
  });

  it('stop() resolves once the pass under way has ended (at once without one)', async () => {
    let release: (() => void) | undefined;
    let ended = false;
    const timer = new SerialTimer(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      ended = true;
      return 60_000;
    });
    timer.now();
    await until('the pass', async () => (release ? true : undefined));
    const stopped = timer.stop().then(() => ended);
    release!();
    expect(await stopped).toBe(true);
    await new SerialTimer(async () => 0).stop();
  });

  it('waits the delay a pass returns before the next', async () => {
    const at: number[] = [];
    const timer = new SerialTimer(async () => {
      at.push(performance.now());
      return 30;
    });
    timer.now();
    await until('three passes', async () => (at.length >= 3 ? true : undefined));
    timer.stop();
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(25);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(25);
  });

  it('a pass that rejects is told to onError and the passes go on (no unhandled rejection)', async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const timer = new SerialTimer(
      async () => {
        passes++;
        if (passes === 1) throw new Error('store down');
        return 60_000;
      },
      (error) => errors.push(error),
    );
    timer.now();
    await until('the pass after the failure', async () => (passes === 2 ? true : undefined), 5_000);
    await timer.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(['store down']);
  });
});
