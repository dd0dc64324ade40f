import type { H3Event } from 'h3';
import { GatewayError } from '../../errors/index.ts';
import { authenticateApiKey } from '../auth.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';

/**
 * OpenAI's stored Chat Completions (`store: true`, then `chat.completions.retrieve`, `.list`,
 * `.update`, `.delete`, `.messages.list`). The gateway keeps none: `store` goes on to the upstream,
 * which keeps them on its side under its own ids. So each of these routes is a 404 that says so
 * and names what the gateway does store (Responses), not a 405 for the list or a bare "no route".
 */
export function storedChatCompletionRoutes(deps: ServerDeps): RouteDef[] {
  const notKept = (event: H3Event): never => {
    authenticateApiKey(event, deps);
    throw new GatewayError(
      'not_found',
      'This gateway does not keep Chat Completions: store: true is passed on to the upstream, and the stored-completion routes (retrieve, list, update, delete, messages) are not served. Use /v1/responses, whose responses it stores (GET /v1/responses/{id}, previous_response_id).',
    );
  };
  return [
    { method: 'GET', path: '/v1/chat/completions', handler: notKept, format: 'chat' },
    { method: 'GET', path: '/v1/chat/completions/:id', handler: notKept, format: 'chat' },
    { method: 'POST', path: '/v1/chat/completions/:id', handler: notKept, format: 'chat' },
    { method: 'DELETE', path: '/v1/chat/completions/:id', handler: notKept, format: 'chat' },
    { method: 'GET', path: '/v1/chat/completions/:id/messages', handler: notKept, format: 'chat' },
  ];
}
