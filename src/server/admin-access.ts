import { isIPv4 } from 'node:net';
import type { H3Event } from 'h3';
import { bareAddress, parseForwarded, parseForwardedFor } from './client-address.ts';
import { nodeOf, requestHeader } from './context.ts';

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (bare === '::1' || bare === '0:0:0:0:0:0:0:1' || bare === 'localhost') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return isIPv4(v4) && v4.startsWith('127.');
}

/** The addresses proxies say the request came from (X-Forwarded-For, X-Real-IP, Forwarded: for= per RFC 7239). */
function forwardedAddresses(event: H3Event): string[] {
  const out: string[] = [];
  const xff = requestHeader(event, 'x-forwarded-for');
  if (xff) out.push(...parseForwardedFor(xff));
  const real = requestHeader(event, 'x-real-ip');
  if (real) out.push(bareAddress(real));
  const forwarded = requestHeader(event, 'forwarded');
  if (forwarded) out.push(...parseForwarded(forwarded));
  return out;
}

/**
 * Whether a request comes from this machine: its socket peer is a loopback address and no
 * proxy header names another client (a reverse proxy on the same host forwards remote
 * clients over loopback). A request with no socket is an in-process call and counts as local.
 */
export function isLoopbackRequest(event: H3Event): boolean {
  const socket = nodeOf(event)?.req.socket;
  const peer = socket?.remoteAddress ?? (event.req as { ip?: string }).ip;
  if (socket && (peer === undefined || !isLoopbackAddress(peer))) return false;
  if (!socket && peer !== undefined && !isLoopbackAddress(peer)) return false;
  return forwardedAddresses(event).every(isLoopbackAddress);
}
