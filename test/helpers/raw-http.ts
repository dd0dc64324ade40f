/**
 * HTTP requests written byte by byte on a raw socket, for what fetch and the SDKs hide: a body
 * the server answers before it is sent whole, a socket kept or closed after the answer.
 */
import net from 'node:net';

/** What the server said on one raw request, and what became of the socket. */
export interface RawExchange {
  /** The status of the first answer (0: none came). */
  status: number;
  /** Everything the server sent (head and body). */
  text: string;
  /** Body bytes written before the answer came or the socket closed. */
  sent: number;
  /** Resolves when the server closed the socket (or it failed). */
  closed: Promise<void>;
}

/**
 * Sends `head` (request line and headers, without the blank line) and then the body produced by
 * `nextPiece` (undefined when done) at the socket's pace, pausing `gapMs` between pieces;
 * stops sending once an answer starts; `signal` destroys the socket. Resolves when the first answer is complete (or the socket closed).
 */
export function rawRequest(url: string, head: string, nextPiece: () => Buffer | undefined, options: { gapMs?: number; signal?: AbortSignal } = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const gapMs = options.gapMs ?? 0;
  const socket = net.connect(Number(port), hostname);
  options.signal?.addEventListener('abort', () => socket.destroy());
  let text = '';
  let sent = 0;
  let answered = false;
  let finished = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  return new Promise((resolve) => {
    const done = () => {
      if (finished) return;
      finished = true;
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text, sent, closed });
    };
    socket.on('data', (data: Buffer) => {
      answered = true;
      text += data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && Number.isFinite(length) && text.length >= end + 4 + length) done();
    });
    socket.once('close', done);
    const write = () => {
      if (answered || socket.destroyed) return;
      const piece = nextPiece();
      if (!piece) return;
      sent += piece.length;
      const more = socket.write(piece);
      if (gapMs > 0) setTimeout(write, gapMs);
      else if (more) setImmediate(write);
      else socket.once('drain', write);
    };
    socket.once('connect', () => {
      socket.write(`${head}\r\n\r\n`);
      write();
    });
  });
}

/** A body made of `prefix`, then `block` repeated until `total` bytes with `suffix`, handed out a block at a time. */
export function repeatedBody(prefix: string, block: string, suffix: string, total: number): { length: number; next: () => Buffer | undefined } {
  const blockBytes = Buffer.from(block);
  const count = Math.floor((total - prefix.length - suffix.length) / blockBytes.length);
  const pieces = [Buffer.from(prefix), ...Array.from({ length: count }, () => blockBytes), Buffer.from(suffix)];
  let index = 0;
  return { length: prefix.length + count * blockBytes.length + suffix.length, next: () => pieces[index++] };
}
