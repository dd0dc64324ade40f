import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPrivateAddress, postWebhook, publicLookup } from '../../src/jobs/webhook-address.ts';

describe('webhook addresses', () => {
  it('knows loopback, private, link-local and the like, in both families and mapped forms', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254']) {
      expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: true });
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', 'example.com']) {
      expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: false });
    }
  });

  it('refuses a callback_url naming a private host however it is spelt (422 naming the field), unless allowed', () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://0x7f.1/', 'http://2130706433/', 'http://LOCALHOST./x', 'http://a.localhost/', 'https://169.254.169.254/latest/meta-data']) {
      let thrown: unknown;
      try {
        checkWebhookUrl(url, false);
      } catch (error) {
        thrown = error;
      }
      expect({ url, status: (thrown as { status?: number })?.status, fields: (thrown as { details?: { fields?: object } })?.details?.fields }).toEqual({
        url, status: 422, fields: { callback_url: expect.stringContaining('media.jobs.webhookPrivateAddresses') },
      });
      expect(() => checkWebhookUrl(url, true)).not.toThrow();
    }
    expect(() => checkWebhookUrl('https://hooks.example.com/video', false)).not.toThrow();
  });

  it('a name resolving to a private address is not connected to; a public one resolves as asked', async () => {
    const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicLookup('localhost', {}, (error) => resolve(error as NodeJS.ErrnoException | null)));
    expect(refused?.code).toBe('EWEBHOOKPRIVATE');
    const all = await new Promise<unknown>((resolve) => publicLookup('8.8.8.8', { all: true }, (_error, addresses) => resolve(addresses)));
    expect(all).toEqual([{ address: '8.8.8.8', family: 4 }]);
    const one = await new Promise<unknown[]>((resolve) => publicLookup('8.8.8.8', {}, (...args) => resolve(args)));
    expect(one).toEqual([null, '8.8.8.8', 4]);
  });

  describe('delivery', () => {
    let server: http.Server | undefined;
    afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

    /** A receiver on 127.0.0.1; `answer` writes its reply. */
    async function receiver(answer: (res: http.ServerResponse) => void): Promise<{ url: string; seen: { headers: http.IncomingHttpHeaders; body: string }[] }> {
      const seen: { headers: http.IncomingHttpHeaders; body: string }[] = [];
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c));
        req.on('end', () => {
          seen.push({ headers: req.headers, body });
          answer(res);
        });
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
    }

    it('is not made to a private address unless allowed; allowed, it is a signed POST', async () => {
      const hook = await receiver((res) => res.end('ok'));
      expect(await postWebhook(hook.url, { 'webhook-id': 'msg_1' }, '{"a":1}', 5000, false)).toBe(false);
      expect(hook.seen).toEqual([]);
      expect(await postWebhook(hook.url, { 'webhook-id': 'msg_1' }, '{"a":1}', 5000, true)).toBe(true);
      expect(hook.seen).toEqual([{ headers: expect.objectContaining({ 'webhook-id': 'msg_1', 'content-type': 'application/json' }), body: '{"a":1}' }]);
    });

    it('does not read a receiver\'s answer (an endless one is not held) and follows no redirect', async () => {
      let written = 0;
      const endless = await receiver((res) => {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024);
        const more = () => {
          while (!res.destroyed && written < 1024 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
        };
        res.on('close', () => undefined);
        more();
      });
      expect(await postWebhook(endless.url, {}, '{}', 5000, true)).toBe(true);
      expect(written).toBeLessThan(64 * 1024 * 1024);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
      const moved = await receiver((res) => res.writeHead(307, { location: 'http://127.0.0.1:9/' }).end());
      expect(await postWebhook(moved.url, {}, '{}', 5000, true)).toBe(false);
      expect(moved.seen).toHaveLength(1);
    });
  });
});
