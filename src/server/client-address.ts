import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * `server.trustProxy` (docs/config.md, "Behind a reverse proxy"): false, true (= 1 hop), the
 * number of proxies in front of the gateway, or the CIDRs of the trusted proxies.
 */
export type TrustProxySetting = boolean | number | readonly string[];

/** How a client address is read from a request's peer and its forwarding headers. */
export interface TrustProxy {
  /** The client's address: the socket peer, or the address the nearest untrusted hop had, as the trusted proxies appended it. */
  clientOf(peer: string, forwardedFor: readonly string[]): string;
}

/** An address without brackets, zone or the port a proxy may have added; IPv4-mapped IPv6 as IPv4. */
export function bareAddress(entry: string): string {
  let text = entry.trim();
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(text);
  if (v4) text = v4[1];
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (v6) text = v6[1];
  text = text.toLowerCase().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  return mapped && isIPv4(mapped[1]) ? mapped[1] : text;
}

/** The trusted proxy CIDRs as a BlockList; throws naming a malformed entry (config validation). */
export function trustedNetworks(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.trim().split('/');
    const bare = bareAddress(address);
    const type = isIPv4(bare) ? 'ipv4' : isIPv6(bare) ? 'ipv6' : undefined;
    const bits = prefix === undefined ? (type === 'ipv4' ? 32 : 128) : Number(prefix);
    if (!type || !Number.isInteger(bits) || bits < 0 || bits > (type === 'ipv4' ? 32 : 128)) throw new Error(`'${cidr}' is not an IP address or CIDR (e.g. 10.0.0.0/8, fd00::/8)`);
    list.addSubnet(bare, bits, type);
  }
  return list;
}

function contains(list: BlockList, address: string): boolean {
  const bare = bareAddress(address);
  if (isIPv4(bare)) return list.check(bare, 'ipv4');
  return isIPv6(bare) && list.check(bare, 'ipv6');
}

/**
 * The client address policy of a `server.trustProxy` setting. A forwarding proxy *appends*
 * the address it received the request from, so only the rightmost entries were written by
 * proxies we trust; whatever is left of them the client wrote itself and is never used.
 * - false: the socket peer.
 * - a number n (true = 1): n proxies in front; the entry the outermost one appended (the n-th
 *   from the right of X-Forwarded-For + peer), or the leftmost when fewer hops came.
 * - CIDRs: from the peer leftwards, skip every address inside them; the first one outside is
 *   the client. A peer outside them is the client (its headers are not read).
 */
export function createTrustProxy(setting: TrustProxySetting): TrustProxy {
  if (setting === false || setting === 0) return { clientOf: (peer) => bareAddress(peer) };
  if (typeof setting === 'number' || setting === true) {
    const hops = setting === true ? 1 : setting;
    return {
      clientOf(peer, forwardedFor) {
        const chain = [...forwardedFor, peer];
        return bareAddress(chain[Math.max(0, chain.length - 1 - hops)]);
      },
    };
  }
  const trusted = trustedNetworks(setting);
  return {
    clientOf(peer, forwardedFor) {
      let client = peer;
      for (let i = forwardedFor.length - 1; i >= 0 && contains(trusted, client); i -= 1) client = forwardedFor[i];
      return bareAddress(client);
    },
  };
}

/** Splits a header value on `sep` outside double-quoted strings. */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted && c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1];
      i += 1;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) {
      out.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  out.push(current);
  return out;
}

function unquote(value: string): string {
  const text = value.trim();
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1).replace(/\\(.)/g, '$1');
  return text;
}

/**
 * The `for=` addresses of a `Forwarded` header (RFC 7239), one per element, in order:
 * `for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711"`. Lenient where proxies are
 * (whitespace around `=` and `;`, any case, quoted or not); an element without `for=` is skipped.
 */
export function parseForwarded(header: string): string[] {
  const out: string[] = [];
  for (const element of splitOutsideQuotes(header, ',')) {
    for (const pair of splitOutsideQuotes(element, ';')) {
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
      const value = bareAddress(unquote(pair.slice(eq + 1)));
      if (value) out.push(value);
    }
  }
  return out;
}

/** The X-Forwarded-For entries of a header value, in order. */
export function parseForwardedFor(header: string): string[] {
  return header
    .split(',')
    .map((entry) => bareAddress(entry))
    .filter(Boolean);
}
