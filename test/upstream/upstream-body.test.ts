import { describe, expect, it } from 'vitest';
import { readBody, UpstreamBody, type ChunkHandler } from '../../src/upstream/index.ts';

function body() {
  const calls = { aborted: 0, resumed: 0 };
  const b = new UpstreamBody(
    () => (calls.aborted += 1),
    () => (calls.resumed += 1),
  );
  return { b, calls };
}

function recorder(): ChunkHandler & { log: string[] } {
  const log: string[] = [];
  return { log, data: (c) => log.push(c.toString()), end: () => log.push('end'), error: (e) => log.push(`error:${(e as Error).message}`) };
}

describe('UpstreamBody', () => {
  it('queues what arrives before a reader, then delivers it and the end in order', () => {
    const { b } = body();
    expect(b.push(Buffer.from('a'))).toBe(true);
    b.push(Buffer.from('b'));
    b.finish();
    const r = recorder();
    b.resume(r);
    expect(r.log).toEqual(['a', 'b', 'end']);
  });

  it('asks undici to wait when the reader pauses, and to go on when it resumes', () => {
    const { b, calls } = body();
    const log: string[] = [];
    const handler: ChunkHandler = { data: (c) => (log.push(c.toString()), b.pause()), end: () => log.push('end'), error: () => log.push('error') };
    b.resume(handler);
    expect(b.push(Buffer.from('1'))).toBe(false);
    expect(calls.resumed).toBe(0);
    b.resume(handler);
    expect(calls.resumed).toBe(1);
    expect(b.push(Buffer.from('2'))).toBe(false);
    b.finish();
    b.resume(handler);
    expect(log).toEqual(['1', '2', 'end']);
  });

  it('stops taking bytes past 64 KB without a reader', () => {
    const { b } = body();
    expect(b.push(Buffer.alloc(40_000))).toBe(true);
    expect(b.push(Buffer.alloc(40_000))).toBe(false);
  });

  it('a failure drops what was queued; destroy aborts the upstream once, and not after the end', () => {
    const failed = body();
    failed.b.push(Buffer.from('lost'));
    failed.b.fail(new Error('reset'));
    const r = recorder();
    failed.b.resume(r);
    expect(r.log).toEqual(['error:reset']);

    const open = body();
    open.b.destroy();
    open.b.destroy();
    expect(open.calls.aborted).toBe(1);
    const done = body();
    done.b.finish();
    done.b.destroy();
    expect(done.calls.aborted).toBe(0);
  });

  it('reads whole (readBody) and iterates (plugins), returning early aborts the upstream', async () => {
    const whole = body();
    const read = readBody(whole.b);
    whole.b.push(Buffer.from('{"a":'));
    whole.b.push(Buffer.from('1}'));
    whole.b.finish();
    expect((await read).toString()).toBe('{"a":1}');

    const iterated = body();
    iterated.b.push(Buffer.from('x'));
    iterated.b.push(Buffer.from('y'));
    iterated.b.finish();
    const seen: string[] = [];
    for await (const chunk of iterated.b) seen.push(Buffer.from(chunk).toString());
    expect(seen).toEqual(['x', 'y']);

    const left = body();
    left.b.push(Buffer.from('x'));
    for await (const chunk of left.b) {
      void chunk;
      break;
    }
    expect(left.calls.aborted).toBe(1);
  });
});
