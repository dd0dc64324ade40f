import type { StreamTarget } from '../src/pipeline/types.ts';

/** What a socket write costs beyond the copy: text is encoded to UTF-8 bytes first. */
const written = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? Buffer.from(chunk).length : chunk.length);

/** The client of the relay benches: a stream target that takes every write at once and only counts its bytes. */
export function countingTarget(): StreamTarget & { readonly bytes: number } {
  let bytes = 0;
  return {
    get bytes() {
      return bytes;
    },
    write(chunk) {
      bytes += written(chunk);
      return true;
    },
    end(chunk) {
      if (chunk) bytes += written(chunk);
    },
    onDrain() {},
    onClose() {},
  };
}
