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
  /** With `keepSending`: resolves once every piece was written (undefined) or with the socket's error code (EPIPE, ECONNRESET) if it failed first. */
  written: Promise<string | undefined>;
}

/**
 * Sends `head` (request line and headers, without the blank line) and then the body produced by
 * `nextPiece` (undefined when done) at the socket's pace, pausing `gapMs` between pieces;
 * stops sending once an answer starts (with `keepSending`, goes on like a client that writes its
 * whole body before reading); `signal` destroys the socket. Resolves when the first answer is
 * complete (or the socket closed).
 */
export function rawRequest(url: string, head: string, nextPiece: () => Buffer | undefined, options: { gapMs?: number; signal?: AbortSignal; keepSending?: boolean } = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const gapMs = options.gapMs ?? 0;
  // A client that goes on sending keeps its side open when the server ends its own (a half-close).
  const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: options.keepSending === true });
  options.signal?.addEventListener('abort', () => socket.destroy());
  let text = '';
  let sent = 0;
  let answered = false;
  let finished = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let wrote!: (error: string | undefined) => void;
  const written = new Promise<string | undefined>((resolve) => (wrote = resolve));
  socket.on('error', (error: NodeJS.ErrnoException) => wrote(error.code ?? String(error)));
  socket.once('close', () => wrote('closed before the body was sent'));
  return new Promise((resolve) => {
    const done = () => {
      if (finished) return;
      finished = true;
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text, sent, closed, written });
    };
    socket.on('data', (data: Buffer) => {
      answered = true;
      text += data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && Number.isFinite(length) && text.length >= end + 4 + length) done();
      else if (end >= 0 && /transfer-encoding: chunked/i.test(text.slice(0, end)) && text.endsWith('\r\n0\r\n\r\n')) done();
    });
    socket.once('close', done);
    const write = () => {
      if ((answered && !options.keepSending) || socket.destroyed) return;
      const piece = nextPiece();
      if (!piece) {
        wrote(undefined);
        // The whole body is out: a client that wrote it regardless of the answer closes its side now.
        if (options.keepSending) socket.end();
        return;
      }
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
