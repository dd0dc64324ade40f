import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rate-limit identity of a client address. IPv4-mapped IPv6 becomes plain IPv4; other IPv6
 * addresses count per /64, because one subscriber usually holds a whole /64 and could rotate
 * through it to dodge a per-address limit.
 */
export function normalizeIp(ip: string): string {
  const bare = ip.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(bare)) return bare;
  return `${expandIpv6(bare).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(ip: string): string[] {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::1.2.3.4) takes two groups; it only affects the low 64 bits we drop.
  const width = (parts: string[]) => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
  const fill = tail === undefined ? [] : new Array<string>(8 - width(left) - width(right)).fill('0');
  return [...left, ...fill, ...right].map((group) => (group.includes('.') ? group : parseInt(group, 16).toString(16)));
}
