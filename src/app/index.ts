/** The app folder's exports: what other folders may import from it. */
export { limitHeapGrowth, limitYoungGeneration } from './heap-growth.ts';
export { startServer, type RunningServer } from './serve.ts';
