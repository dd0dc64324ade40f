import type { H3Event } from 'h3';
import { validationError } from '../../errors/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { requestState } from '../context.ts';
import { jsonBodyBounds, readJsonObjectNow } from '../read-body.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';
import { runMediaExchange } from '../../exchange/index.ts';
import { mediaCallOf } from './media-shared.ts';

export const EMBEDDINGS = '/v1/embeddings';

/** Inputs one request may carry, as OpenAI bounds them. */
const MAX_INPUTS = 2048;

/** The texts of `input` (a string or an array of strings); token-array inputs are not taken. */
function inputsOf(value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) {
    throw validationError({ input: 'must be a non-empty string or array of strings' });
  }
  if (list.length > MAX_INPUTS) throw validationError({ input: `must have at most ${MAX_INPUTS} items` });
  return list;
}

/**
 * POST /v1/embeddings (OpenAI's shape): routed over the `embedding` models like a media call
 * (strategy, fallbacks, breakers), admitted by the key's scopes and limits, billed per input
 * token (the upstream's count, else ~4 characters a token) at the model's input price.
 */
function embeddingsHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const read = readJsonObjectNow(event, jsonBodyBounds(deps, deps.config.server.bodyLimits.inference));
    const { body } = read instanceof Promise ? await read : read;
    if (typeof body.model !== 'string' || body.model === '') throw validationError({ model: 'is required' });
    const input = inputsOf(body.input);
    const estimated = input.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
    const model = body.model;
    // The model asked for, as the client named it (the exchange would name the first candidate).
    const record = requestState(event).record;
    if (record) record.requestedModel = model;
    const { value: served } = await runMediaExchange(deps, {
      ...mediaCallOf(event, deps, auth, EMBEDDINGS),
      task: 'embedding',
      model,
      run: (candidate, signal) => candidate.provider.instance.embeddings!({ model: candidate.upstreamId, input, body: { ...body, model: candidate.upstreamId }, signal }),
      used: (result) => ({ usage: result.inputTokens === undefined ? undefined : { inputTokens: result.inputTokens, outputTokens: 0 }, estimatedInput: estimated, media: {} }),
      answer: (answered) => answered,
    });
    return json(event, { ...served.value.body, model: served.model.id });
  };
}

export function embeddingRoutes(deps: ServerDeps): RouteDef[] {
  return [{ method: 'POST', path: EMBEDDINGS, handler: embeddingsHandler(deps), format: 'chat' }];
}
