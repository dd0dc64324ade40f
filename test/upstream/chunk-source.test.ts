import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chunkSourceOf, type ChunkHandler } from '../../src/upstream/index.ts';

function recorder(): ChunkHandler & { log: string[]; ended: Promise<void> } {
  const log: string[] = [];
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  return {
    log,
    ended,
    data: (chunk) => log.push(`data:${chunk.toString()}`),
    end: () => {
      log.push('end');
      done();
    },
    error: (error) => {
      log.push(`error:${(error as Error).message}`);
      done();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('chunkSourceOf (Node stream)', () => {
  it('keeps a chunk and the end that come after pause() for the next handler', async () => {
    const stream = new Readable({ read() {} });
    const source = chunkSourceOf(stream);
    const first: string[] = [];
    source.resume({
      data: (chunk) => {
        first.push(chunk.toString());
        source.pause();
      },
      end: () => first.push('end'),
      error: () => first.push('error'),
    });
    stream.push('a');
    stream.push('b');
    stream.push(null);
    await tick();
    expect(first).toEqual(['a']);
    const second = recorder();
    source.resume(second);
    await second.ended;
    expect(second.log).toEqual(['data:b', 'end']);
  });

  it('delivers an error raised while paused on resume, and none after destroy', async () => {
    const stream = new Readable({ read() {} });
    const source = chunkSourceOf(stream);
    source.pause();
    stream.destroy(new Error('reset'));
    await tick();
    const handler = recorder();
    source.resume(handler);
    await handler.ended;
    expect(handler.log).toEqual(['error:reset']);

    const other = new Readable({ read() {} });
    const destroyed = chunkSourceOf(other);
    const quiet = recorder();
    destroyed.resume(quiet);
    destroyed.destroy();
    other.push('late');
    await tick();
    expect(quiet.log).toEqual([]);
    expect(other.destroyed).toBe(true);
  });
});

describe('chunkSourceOf (async iterable)', () => {
  it('pumps chunks, holds one that arrives while paused, and ends', async () => {
    const source = chunkSourceOf(
      (async function* () {
        yield Buffer.from('a');
        yield 'b';
        yield Uint8Array.from([99]);
      })(),
    );
    const seen: string[] = [];
    source.resume({ data: (c) => (seen.push(c.toString()), source.pause()), end: () => seen.push('end'), error: () => seen.push('error') });
    await tick();
    expect(seen).toEqual(['a']);
    const rest = recorder();
    source.resume(rest);
    await rest.ended;
    expect(rest.log).toEqual(['data:b', 'data:c', 'end']);
  });

  it('destroy() returns the iterator (its finally runs)', async () => {
    let closed = false;
    const source = chunkSourceOf(
      (async function* () {
        try {
          for (;;) yield Buffer.from('x');
        } finally {
          closed = true;
        }
      })(),
    );
    source.resume({ data: () => source.destroy(), end: () => undefined, error: () => undefined });
    await tick();
    await tick();
    expect(closed).toBe(true);
  });
});
