import type { ServerDeps } from './types.ts';

/** A bound on a body's bytes and what sets it (a config key such as `server.bodyLimits.inference`), named in its 413. */
export interface ByteLimit {
  bytes: number;
  setting: string;
}

/** The `server.bodyLimits` byte bound of a class of route (docs/limits.md). */
export function bodyLimit(deps: Pick<ServerDeps, 'config'>, name: 'inference' | 'media' | 'other'): ByteLimit {
  return { bytes: deps.config.server.bodyLimits[name], setting: `server.bodyLimits.${name}` };
}

/** The tighter of two bounds: the one a body meets first, so the one its 413 names. */
export function tighterLimit(a: ByteLimit, b: ByteLimit): ByteLimit {
  return b.bytes < a.bytes ? b : a;
}
