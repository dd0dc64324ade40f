import { GatewayError, isGatewayError, validationError } from '../errors/index.ts';
import { getFormat } from '../formats/index.ts';
import { modelListHint } from '../providers/index.ts';
import type { WireFormat } from '../ir/index.ts';
import type { ExchangeDeps } from './types.ts';

/** The most fallback models a request may name (OpenRouter documents no bound; three to five is what people send). */
export const MAX_REQUEST_FALLBACKS = 8;
/** The longest model id a fallback list may hold (a catalog id is far shorter). */
const MAX_MODEL_ID = 256;

/** A body with its fallback list taken out and `model` set (the list's first when it had none). */
export interface WithFallbacks {
  body: Record<string, unknown>;
  raw: string;
  fallbacks: readonly string[];
}

function invalid(field: string, message: string): GatewayError {
  return validationError({ [field]: message });
}

/**
 * A request's own fallback models (OpenRouter's `models` on Chat and Responses: "if the first
 * model fails, try the next"), where its format has such a field and the body uses it: checked
 * (1–8 known model ids), taken out of the body with OpenRouter's `route: 'fallback'` beside it (no
 * upstream knows them: OpenAI refuses unknown fields),
 * with `model` set to the list's first when the body left it out. Undefined when the body has no
 * list, so the client's bytes go on untouched. An id the gateway does not serve is the 404 of
 * an unknown `model`, naming the field.
 */
export function takeRequestFallbacks(deps: Pick<ExchangeDeps, 'registry'>, format: WireFormat, body: Record<string, unknown>): WithFallbacks | undefined {
  const field = getFormat(format).passthrough.modelFallbacks;
  if (field === undefined || body[field] === undefined) return undefined;
  const list = body[field];
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_REQUEST_FALLBACKS) throw invalid(field, `must be an array of 1 to ${MAX_REQUEST_FALLBACKS} model ids`);
  const bad = list.findIndex((id) => typeof id !== 'string' || id.length === 0 || id.length > MAX_MODEL_ID);
  if (bad !== -1) throw invalid(`${field}[${bad}]`, `must be a model id (a string of 1 to ${MAX_MODEL_ID} characters)`);
  const ids = list as string[];
  for (const id of ids) {
    try {
      deps.registry.resolve(id);
    } catch (error) {
      throw notServed(id, field, error);
    }
  }
  const { [field]: _list, ...rest } = body;
  // OpenRouter's older spelling sent beside the list (`route: 'fallback'`) says the same: no upstream knows it either.
  if (rest.route === 'fallback') delete rest.route;
  const model = rest.model === undefined || rest.model === null ? ids[0] : rest.model;
  const out = { ...rest, model };
  return { body: out, raw: JSON.stringify(out), fallbacks: [...new Set(ids)].filter((id) => id !== model) };
}

/**
 * The 404 of a listed id no provider serves: the registry's words for an unknown `model`, with why (the id's
 * `provider/` prefix names no provider here, as OpenRouter's ids often do, or its provider does not list it),
 * naming the list.
 */
function notServed(id: string, field: string, error: unknown): GatewayError {
  const said = isGatewayError(error) && error.code === 'model_not_found' ? error.message : undefined;
  const start = `The model '${id}' `;
  const message = said?.startsWith(start)
    ? `The model '${id}' in '${field}' ${said.slice(start.length)}`
    : `The model '${id}' in '${field}' does not exist or is not served by any configured provider. ${modelListHint()}`;
  return new GatewayError('model_not_found', message, { details: { model: id, param: field } });
}
