import { describe, expect, it } from 'vitest';
import { createTrustProxy, parseForwarded, parseForwardedFor } from '../../src/server/client-address.ts';

describe('parseForwarded (RFC 7239)', () => {
  it('reads for= in every form proxies write it', () => {
    expect(parseForwarded('for=192.0.2.60;proto=http;by=203.0.113.43')).toEqual(['192.0.2.60']);
    expect(parseForwarded('for = 10.1.2.3')).toEqual(['10.1.2.3']);
    expect(parseForwarded('For="[2001:db8:cafe::17]:4711", for=198.51.100.17:80 ; proto=https')).toEqual(['2001:db8:cafe::17', '198.51.100.17']);
    expect(parseForwarded('for="_gazonk", proto=http;for=unknown')).toEqual(['_gazonk', 'unknown']);
    expect(parseForwarded('proto=https;host="a,b";for="::ffff:10.0.0.1"')).toEqual(['10.0.0.1']);
    expect(parseForwarded('by=1.2.3.4')).toEqual([]);
  });
});

describe('createTrustProxy', () => {
  const xff = (header: string) => parseForwardedFor(header);

  it('false: the socket peer, whatever the headers say', () => {
    expect(createTrustProxy(false).clientOf('198.51.100.1', xff('1.2.3.4'))).toBe('198.51.100.1');
  });

  it('hops: the address the outermost trusted proxy appended, never what the client wrote', () => {
    // The client wrote 6.6.6.6 itself; the proxy (the peer, 127.0.0.1) appended 203.0.113.7.
    expect(createTrustProxy(1).clientOf('127.0.0.1', xff('6.6.6.6, 203.0.113.7'))).toBe('203.0.113.7');
    expect(createTrustProxy(true).clientOf('127.0.0.1', xff('6.6.6.6, 203.0.113.7'))).toBe('203.0.113.7');
    expect(createTrustProxy(2).clientOf('127.0.0.1', xff('6.6.6.6, 203.0.113.7, 10.0.0.2'))).toBe('203.0.113.7');
    // Fewer hops than configured: the leftmost there is.
    expect(createTrustProxy(3).clientOf('127.0.0.1', xff('203.0.113.7'))).toBe('203.0.113.7');
    expect(createTrustProxy(1).clientOf('::ffff:127.0.0.1', [])).toBe('127.0.0.1');
  });

  it('CIDRs: skips trusted proxies from the peer leftwards; an untrusted peer is the client', () => {
    const trust = createTrustProxy(['10.0.0.0/8', '::1']);
    expect(trust.clientOf('10.0.0.5', xff('6.6.6.6, 203.0.113.7, 10.1.1.1'))).toBe('203.0.113.7');
    expect(trust.clientOf('::1', xff('6.6.6.6, 2001:db8::1'))).toBe('2001:db8::1');
    expect(trust.clientOf('198.51.100.1', xff('6.6.6.6'))).toBe('198.51.100.1');
    expect(trust.clientOf('10.0.0.5', xff('10.2.2.2'))).toBe('10.2.2.2');
    expect(() => createTrustProxy(['10.0.0.0/33'])).toThrow(/not an IP address or CIDR/);
  });
});
