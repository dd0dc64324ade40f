import type { Writable } from 'node:stream';

/**
 * Writes `piece` to `to` until `total` bytes went (`already` of them written before), the next
 * write each time after 'drain': a client sending as fast as the other side takes. Gives a
 * reader of the bytes handed to `to` so far, which stops growing when the other side stops.
 */
export function pumpBody(to: Writable, piece: Buffer, total: number, already = 0): () => number {
  let sent = already;
  const pump = () => {
    while (sent < total) {
      sent += piece.length;
      if (!to.write(piece)) return void to.once('drain', pump);
    }
  };
  pump();
  return () => sent;
}
