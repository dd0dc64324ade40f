/** The responses-store folder's exports: what other folders may import from it. */
export { ResponseCollector } from './collect-response.ts';
export { startResponsesExpiry } from './expire-responses.ts';
