/** The server folder's exports: what other folders may import from it. */
export { createAdminApp, createApp } from './app.ts';
export { acceptH2c, type H2cOptions, type H2cSide } from './accept-h2c.ts';
export { capConnections } from './cap-connections.ts';
export { createRequestReaders } from './create-request-readers.ts';
export type { ServerDeps } from './types.ts';
