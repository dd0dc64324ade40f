import http2 from 'node:http2';

/** A POST of `body` as JSON with the gateway key on an HTTP/2 session: the stream and its response head. */
export function h2Post(session: http2.ClientHttp2Session, path: string, key: string, body: Record<string, unknown>) {
  const stream = session.request({ ':method': 'POST', ':path': path, authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  stream.end(JSON.stringify(body));
  const headers = new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
    stream.once('response', resolve);
    stream.once('error', reject);
  });
  return { stream, headers };
}

/** The rest of a stream's body as text. */
export async function readAll(stream: http2.ClientHttp2Stream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const piece of stream) text += piece;
  return text;
}

/** Reads a stream's body until it holds `text` (then stops reading). */
export function readUntil(stream: http2.ClientHttp2Stream, text: string): Promise<string> {
  let seen = '';
  stream.setEncoding('utf8');
  return new Promise((resolve) => {
    const onData = (piece: string) => {
      seen += piece;
      if (!seen.includes(text)) return;
      stream.off('data', onData);
      resolve(seen);
    };
    stream.on('data', onData);
  });
}

/** Polls `check` until true, or fails after `ms`. */
export async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
