import { Readable } from 'node:stream';
import { answerTooLarge, UpstreamBody } from './upstream-body.ts';

/** Reads a Node stream (undici's body) through its events: no promise per chunk. */
function readStream(stream: Readable, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    let bytes = 0;
    stream.on('data', (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      if (bytes > maxBytes) {
        chunks.length = 0;
        ended = true;
        reject(answerTooLarge(maxBytes));
        stream.destroy();
        return;
      }
      chunks.push(buffer);
    });
    stream.once('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    stream.once('error', reject);
    stream.once('close', () => {
      if (!ended) reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

/**
 * Reads a whole upstream body into one buffer. Past `maxBytes` (unbounded unless given) the
 * upstream is stopped and the read fails with answerTooLarge: a body that never ends, or one far
 * larger than any answer, is not held in memory until it does.
 */
export function readBody(body: AsyncIterable<Uint8Array>, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  if (body instanceof UpstreamBody) return body.readAll(maxBytes);
  if (body instanceof Readable) return readStream(body, maxBytes);
  return readIterable(body, maxBytes);
}

async function readIterable(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw answerTooLarge(maxBytes);
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** Reads an upstream body as JSON; returns the raw text when it is not JSON. */
export async function readJsonBody(body: AsyncIterable<Uint8Array>): Promise<unknown> {
  const text = (await readBody(body)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A one-shot body from bytes or text (for plugins that answer locally, like `mock`). */
export async function* bodyFrom(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}
