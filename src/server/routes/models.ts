import type { H3Event } from 'h3';
import { GatewayError } from '../../errors/index.ts';
import { toModelObject } from '../../providers/describe-model.ts';
import { authenticateApiKey } from '../auth.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';

/** GET /v1/models?type=…&capability=… */
export function listModels(deps: ServerDeps) {
  return (event: H3Event): string => {
    authenticateApiKey(event, deps);
    const type = event.url.searchParams.get('type');
    const capability = event.url.searchParams.get('capability');
    const data = deps.registry.models
      .filter((m) => !type || (m.spec.type ?? 'chat') === type)
      .filter((m) => !capability || (m.spec.capabilities ?? []).includes(capability as never))
      .map(toModelObject);
    return json(event, { object: 'list', data });
  };
}

/** GET /v1/models/{model_id}; the SDKs send `provider/model` with the slash encoded. */
export function getModel(deps: ServerDeps) {
  return (event: H3Event): string => {
    authenticateApiKey(event, deps);
    const rawId = event.url.pathname.slice('/v1/models/'.length);
    let id: string;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      throw new GatewayError('bad_request', 'The model id in the path is not valid percent-encoding.');
    }
    const model = deps.registry.get(id) ?? deps.registry.models.find((m) => m.upstreamId === id);
    if (!model) throw new GatewayError('model_not_found', `The model '${id}' does not exist.`, { details: { model: id } });
    return json(event, toModelObject(model));
  };
}
