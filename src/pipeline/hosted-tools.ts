import { validationError, type GatewayError } from '../errors/index.ts';
import type { ChatRequest } from '../ir/types.ts';
import type { CatalogModel } from '../providers/types.ts';

/** The types of the Responses hosted tools a request carries (web_search, file_search, …). */
export function hostedToolTypes(request: ChatRequest): string[] {
  const hosted = request.extra?.hostedTools;
  if (!Array.isArray(hosted)) return [];
  return hosted.map((tool) => String((tool as { type?: unknown }).type ?? 'unknown'));
}

/** Only a Responses upstream runs hosted tools; every other format would drop them silently. */
export function canRunHostedTools(model: CatalogModel): boolean {
  return model.formats.includes('responses');
}

/** 422 naming the hosted tools and the model that cannot run them (never a silent drop). */
export function hostedToolsError(types: readonly string[], model: string): GatewayError {
  const names = types.map((t) => `'${t}'`).join(', ');
  return validationError(
    { tools: `hosted tool ${names} cannot run on model '${model}': its upstream does not speak the Responses API` },
    `Hosted tool ${names} is not supported by model '${model}' (its upstream does not speak the Responses API); remove the tool or pick a model served by a Responses upstream.`,
  );
}
