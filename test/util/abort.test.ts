import { describe, expect, it } from 'vitest';
import { abortWatchOf, attachAbortWatch, FastAbortController, onAbort, watchOf } from '../../src/util/abort.ts';

describe('FastAbortController', () => {
  it('calls listeners once, in order, and not after they are removed', () => {
    const controller = new FastAbortController();
    const calls: string[] = [];
    controller.listen(() => calls.push('a'));
    const removeB = controller.listen(() => calls.push('b'));
    controller.listen(() => calls.push('c'));
    removeB();
    controller.abort('why');
    controller.abort('again');
    expect(calls).toEqual(['a', 'c']);
    expect(controller.aborted).toBe(true);
    expect(controller.reason).toBe('why');
  });

  it('keeps the order of listeners however they come and go (the first, the last, one in the middle, twice the same)', () => {
    const controller = new FastAbortController();
    const calls: string[] = [];
    const hear = (name: string) => () => calls.push(name);
    const removeA = controller.listen(hear('a'));
    const removeB = controller.listen(hear('b'));
    removeA();
    controller.listen(hear('c'));
    const d = hear('d');
    controller.listen(d);
    controller.listen(d);
    const removeE = controller.listen(hear('e'));
    removeE();
    controller.unlisten(d);
    removeA();
    controller.listen(hear('f'));
    removeB();
    controller.abort();
    expect(calls).toEqual(['c', 'd', 'f']);

    const alone = new FastAbortController();
    const removeOnly = alone.listen(hear('only'));
    removeOnly();
    alone.listen(hear('next'));
    alone.abort();
    expect(calls).toEqual(['c', 'd', 'f', 'next']);

    const later = new FastAbortController();
    const removeX = later.listen(hear('x'));
    later.listen(hear('y'));
    removeX();
    later.listen(hear('z'));
    later.abort();
    expect(calls.slice(-2)).toEqual(['y', 'z']);
  });

  it('makes a real AbortSignal on demand, aborted with the same reason even when read late', () => {
    const early = new FastAbortController();
    const signal = early.signal;
    let heard: unknown;
    signal.addEventListener('abort', () => (heard = signal.reason));
    early.abort('gone');
    expect(heard).toBe('gone');

    const late = new FastAbortController();
    late.abort();
    expect(late.signal.aborted).toBe(true);
    expect((late.signal.reason as Error).name).toBe('AbortError');
  });

  it('onAbort and watchOf find the controller behind its signal, and fall back to events for others', () => {
    const controller = new FastAbortController();
    expect(watchOf(controller.signal)).toBe(controller);
    let fast = 0;
    onAbort(controller.signal, () => (fast += 1));
    controller.abort();
    expect(fast).toBe(1);

    const plain = new AbortController();
    let slow = 0;
    const remove = onAbort(plain.signal, () => (slow += 1));
    expect(watchOf(plain.signal).aborted).toBe(false);
    remove();
    plain.abort();
    expect(slow).toBe(0);
  });

  it('abortWatchOf reads a call\'s attached watch without making its signal, and falls back to the signal otherwise', () => {
    const controller = new FastAbortController();
    const call = attachAbortWatch(
      {
        get signal(): AbortSignal {
          throw new Error('the signal was made');
        },
      },
      controller,
    );
    const watch = abortWatchOf(call);
    let heard = 0;
    watch.listen(() => (heard += 1));
    controller.abort('gone');
    expect(heard).toBe(1);
    expect(watch.reason).toBe('gone');

    const plain = new AbortController();
    expect(abortWatchOf({ signal: plain.signal }).aborted).toBe(false);
    plain.abort('x');
    expect(abortWatchOf({ signal: plain.signal }).reason).toBe('x');
  });
});
