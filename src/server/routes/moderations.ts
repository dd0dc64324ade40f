import type { H3Event } from 'h3';
import { decodeModerationRequest, moderationAttempt } from '../../media/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { runJsonMedia } from './media-shared.ts';
import type { RouteDef } from './types.ts';

export const MODERATIONS = '/v1/moderations';

/**
 * POST /v1/moderations (OpenAI's shape, `model` defaulting to `omni-moderation-latest`): routed
 * over the `moderation` models like embeddings, admitted by the key's scopes and limits, billed
 * per estimated input token at the model's input price (OpenAI's are free).
 */
function moderationsHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const { served } = await runJsonMedia(event, deps, auth, MODERATIONS, decodeModerationRequest, moderationAttempt);
    return json(event, { ...served.value.body, model: served.model.id });
  };
}

export function moderationRoutes(deps: ServerDeps): RouteDef[] {
  return [{ method: 'POST', path: MODERATIONS, handler: moderationsHandler(deps), format: 'chat' }];
}
