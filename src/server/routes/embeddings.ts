import type { H3Event } from 'h3';
import { decodeEmbeddingRequest, embeddingAttempt } from '../../media/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { requestState } from '../context.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';
import { runMediaExchange } from '../../exchange/index.ts';
import { mediaCallOf } from './media-shared.ts';

export const EMBEDDINGS = '/v1/embeddings';

/**
 * POST /v1/embeddings (OpenAI's shape): routed over the `embedding` models like a media call
 * (strategy, fallbacks, breakers), admitted by the key's scopes and limits, billed per input
 * token (the upstream's count, else ~4 characters a token) at the model's input price.
 */
function embeddingsHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const read = readJsonObject(event, jsonBodyBounds(deps, deps.config.server.bodyLimits.inference));
    const { body } = read instanceof Promise ? await read : read;
    const request = decodeEmbeddingRequest(body);
    // The model asked for, as the client named it (the exchange would name the first candidate).
    const record = requestState(event).record;
    if (record) record.requestedModel = request.model;
    const { value: served } = await runMediaExchange(deps, {
      ...mediaCallOf(event, deps, auth, EMBEDDINGS),
      ...embeddingAttempt(request),
      answer: (answered) => answered,
    });
    return json(event, { ...served.value.body, model: served.model.id });
  };
}

export function embeddingRoutes(deps: ServerDeps): RouteDef[] {
  return [{ method: 'POST', path: EMBEDDINGS, handler: embeddingsHandler(deps), format: 'chat' }];
}
