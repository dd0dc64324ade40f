import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';
import type * as Undici from 'undici';
import { validationError } from '../errors/index.ts';
import { loadOnUse } from '../util/index.ts';

const undici = loadOnUse<typeof Undici>('undici');

/**
 * Where a `callback_url` may not lead unless `media.jobs.webhookPrivateAddresses` allows it:
 * loopback, private networks, link-local (a cloud's metadata service at 169.254.169.254),
 * shared address space, "this network", benchmarking, multicast and reserved; IPv6's loopback,
 * unspecified, unique-local, link-local and multicast. An IPv4-mapped IPv6 address is judged as
 * its IPv4 address (node:net's BlockList does that).
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is one a webhook is not delivered to by default. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL as an address or name (`[::1]` → `::1`). */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** Whether a URL's host is itself a private address or a `localhost` name (no lookup). */
export function namesPrivateHost(url: string): boolean {
  const host = hostOf(new URL(url)).replace(/\.$/, '');
  return isPrivateAddress(host) || host === 'localhost' || host.endsWith('.localhost');
}

/**
 * Refuses (422, `callback_url`) a webhook URL whose host is itself a private address or a
 * `localhost` name, when those are not allowed. A name that resolves to one is refused when the
 * delivery connects (webhookDispatcher), as is one that changed its address since.
 */
export function checkWebhookUrl(url: string, allowPrivate: boolean): void {
  if (!allowPrivate && namesPrivateHost(url)) {
    throw validationError({ callback_url: 'must not lead to a loopback, private or link-local address (set media.jobs.webhookPrivateAddresses: true to deliver there)' });
  }
}

/** dns.lookup that fails for a private address, in both of its shapes (one address, or all). */
export function publicLookup(hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error);
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused) {
      const blocked = Object.assign(new Error(`webhook host ${hostname} resolves to ${refused.address}, a private address (media.jobs.webhookPrivateAddresses allows it)`), { code: 'EWEBHOOKPRIVATE' });
      return callback(blocked);
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
}

let publicOnly: Undici.Dispatcher | undefined;
let anyAddress: Undici.Dispatcher | undefined;

/**
 * The dispatcher webhook deliveries go through. Unless private addresses are allowed, it resolves
 * names itself and refuses to connect to a private address, at every connection: a name
 * re-pointed after the job was submitted (DNS rebinding) is caught too.
 */
function webhookDispatcher(allowPrivate: boolean): Undici.Dispatcher {
  if (allowPrivate) return (anyAddress ??= new (undici().Agent)());
  return (publicOnly ??= new (undici().Agent)({ connect: { lookup: publicLookup as never } }));
}

/**
 * POSTs one webhook delivery; true when the receiver answered 2xx. Redirects are not followed,
 * at most 64 KiB of the receiver's answer is read, and dropped (an endless answer is cut), and
 * a private address is not connected to unless allowed.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<boolean> {
  if (!allowPrivate && namesPrivateHost(url)) return false;
  try {
    const res = await undici().request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'gateway-webhooks/1', ...headers },
      body,
      dispatcher: webhookDispatcher(allowPrivate),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    return res.statusCode >= 200 && res.statusCode < 300;
  } catch {
    return false;
  }
}
