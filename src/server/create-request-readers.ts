import type { GatewayConfig } from '../config/index.ts';
import { BodyBudget } from './body-budget.ts';
import { createClientAddress } from './context.ts';
import type { ServerDeps } from './types.ts';

/**
 * What the HTTP layer reads every request with, made once per gateway from the `server` config
 * by the composition root: the parse budget of large bodies and the client-address reader.
 */
export function createRequestReaders(config: Pick<GatewayConfig, 'server'>): Pick<ServerDeps, 'bodyBudget' | 'clientAddress'> {
  return { bodyBudget: new BodyBudget(config.server.bodyLimits.inFlight), clientAddress: createClientAddress(config.server.trustProxy) };
}
