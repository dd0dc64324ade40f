import { validationError, type GatewayError } from '../errors/index.ts';
import type { ChatRequest } from '../ir/types.ts';
import type { CatalogModel } from '../providers/types.ts';

/**
 * The types of the Responses hosted tools a request carries (web_search, file_search, …),
 * including one forced by `tool_choice` (e.g. `{"type":"web_search"}`) without a tool entry:
 * another format would drop that choice as silently as the tool.
 */
export function hostedToolTypes(request: ChatRequest): string[] {
  const extra = request.extra;
  if (!extra) return [];
  const hosted = extra.hostedTools;
  const types = Array.isArray(hosted) ? hosted.map((tool) => String((tool as { type?: unknown }).type ?? 'unknown')) : [];
  const choice = extra.tool_choice as { type?: unknown } | undefined;
  // allowed_tools only narrows the listed tools (its mode is in the IR); every other raw choice names a hosted tool.
  if (choice && typeof choice === 'object' && choice.type !== 'allowed_tools') {
    const type = String(choice.type ?? 'unknown');
    if (!types.includes(type)) types.push(type);
  }
  return types;
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
