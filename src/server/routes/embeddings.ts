import type { H3Event } from 'h3';
import type { AuthContext } from '../../accounts/index.ts';
import type { EmbeddingsFace, FormatDefinition } from '../../formats/index.ts';
import { decodeEmbeddingRequest, embeddingAttempt, embeddingVectors, shareInputTokens } from '../../media/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { noRoute } from '../hint-base-url.ts';
import type { RouteDef } from './types.ts';
import { runJsonMedia } from './media-shared.ts';

export const EMBEDDINGS = '/v1/embeddings';

/**
 * POST /v1/embeddings (OpenAI's shape): routed over the `embedding` models like a media call
 * (strategy, fallbacks, breakers), admitted by the key's scopes and limits, billed per input
 * token (the upstream's count, else ~4 characters a token) at the model's input price.
 */
function embeddingsHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const { served } = await embed(event, deps, auth, (body) => body);
    return json(event, { ...served.value.body, model: served.model.id });
  };
}

/** The body read, turned into OpenAI's by `toOpenAI`, checked and run over the embedding models. */
function embed(event: H3Event, deps: ServerDeps, auth: AuthContext, toOpenAI: (body: Record<string, unknown>) => Record<string, unknown>) {
  return runJsonMedia(event, deps, auth, EMBEDDINGS, (body) => decodeEmbeddingRequest(toOpenAI(body)), embeddingAttempt);
}

/**
 * A format's own embeddings route (its face's `embeddings`: Gemini's `…:embedContent` and
 * `…:batchEmbedContents`), with its credentials: the body becomes OpenAI's and runs as
 * `POST /v1/embeddings` does; the vectors go back in the format's shape.
 */
export function formatEmbeddingsHandler(deps: ServerDeps, format: FormatDefinition, face: EmbeddingsFace) {
  return async (event: H3Event): Promise<string> => {
    const target = face.readPath(event.url.pathname, event.url.searchParams);
    if (!target) throw noRoute(event.req.method, event.url.pathname);
    const auth = authenticateApiKey(event, deps, format.id);
    const { request, served } = await embed(event, deps, auth, (body) => face.decode(body, target));
    const tokens = shareInputTokens(request.input, served.value.inputTokens ?? request.estimatedInput);
    // The exchange read them before the charge (`embeddingVectors` in its `used`); a face's body never asks base64, so they are numbers.
    return json(event, face.encode(embeddingVectors(served.value, request) as number[][], target, tokens));
  };
}

export function embeddingRoutes(deps: ServerDeps): RouteDef[] {
  return [{ method: 'POST', path: EMBEDDINGS, handler: embeddingsHandler(deps), format: 'chat' }];
}
