/** The server folder's exports: what other folders may import from it. */
export { createAdminApp, createApp } from './app.ts';
export { capConnections } from './cap-connections.ts';
export { createRequestReaders } from './create-request-readers.ts';
export type { ServerDeps } from './types.ts';
