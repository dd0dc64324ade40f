/**
 * The floor for a Node gateway: node:http in, undici Pool out, nothing else. It reads the
 * request body, sends it to the upstream with the upstream's key, and streams the response
 * straight back (undici's `stream` writes into the client response as bytes arrive).
 *
 * Run alone: `node --import tsx bench/passthrough-proxy.ts --upstream http://127.0.0.1:<port> [--port 0]`.
 * Prints `passthrough-proxy listening on http://127.0.0.1:<port>` when ready.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';

/** Creates the proxy server (not yet listening) forwarding every request to `upstream` (an origin). */
export function createPassthroughProxy(upstream: string, apiKey = 'x'): { server: http.Server; close: () => Promise<void> } {
  const pool = new Pool(upstream, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000 });
  const authorization = `Bearer ${apiKey}`;

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      pool
        .stream(
          {
            method: req.method as 'POST',
            path: req.url ?? '/',
            headers: { 'content-type': 'application/json', authorization },
            body,
          },
          ({ statusCode, headers }) => {
            const contentType = headers['content-type'];
            const out: Record<string, string> = {};
            if (typeof contentType === 'string') out['content-type'] = contentType;
            res.writeHead(statusCode, out);
            return res;
          },
        )
        .catch((error: Error) => {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: error.message, type: 'proxy_error' } }));
        });
    });
  });
  return { server, close: () => pool.close() };
}

function argValue(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const upstream = argValue('--upstream');
  if (!upstream) {
    console.error('passthrough-proxy: --upstream <origin> is required');
    process.exit(2);
  }
  const { server } = createPassthroughProxy(new URL(upstream).origin);
  server.keepAliveTimeout = 60_000;
  server.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    console.log(`passthrough-proxy listening on http://127.0.0.1:${port}`);
  });
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}
