import { Readable } from 'node:stream';
import { UpstreamBody } from './upstream-body.ts';

/** Reads a Node stream (undici's body) through its events: no promise per chunk. */
function readStream(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
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

/** Reads a whole upstream body into one buffer. */
export function readBody(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  if (body instanceof UpstreamBody) return body.readAll();
  if (body instanceof Readable) return readStream(body);
  return readIterable(body);
}

async function readIterable(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
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
