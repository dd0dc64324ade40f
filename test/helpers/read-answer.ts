import type http from 'node:http';

/** A raw request's status and JSON answer; a socket the gateway closes after refusing early (EPIPE, ECONNRESET) is not an error. */
export function readAnswer(req: http.ClientRequest): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A refusal may come before the whole body was sent: the gateway closes the socket after it.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') return;
      reject(error);
    });
  });
}
