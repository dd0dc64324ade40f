import { validationError, type GatewayError } from '../errors/index.ts';
import type { ChatRequest, WireFormat } from '../ir/types.ts';
import type { HostedToolsPolicy } from '../plugin-kit/types.ts';
import type { CatalogModel } from '../providers/types.ts';

/**
 * Tools only one vendor's API can run, carried raw in `extra` because the IR has no slot for
 * them: Responses hosted tools (web_search, file_search, mcp, …) and Anthropic-defined tools
 * (web_search_…, code_execution_…, bash_…). Another format would drop them silently.
 */
export interface VendorTools {
  /** The only upstream format that can run them. */
  format: Exclude<WireFormat, 'chat'>;
  /** Their `type`s, in order. */
  types: string[];
}

const API_NAME: Record<VendorTools['format'], string> = { responses: 'the Responses API', messages: 'the Anthropic Messages API' };

function typesOf(list: unknown): string[] {
  return Array.isArray(list) ? list.map((tool) => String((tool as { type?: unknown }).type ?? 'unknown')) : [];
}

/**
 * The vendor tools a request carries, if any: the Responses hosted tools, including one forced
 * by `tool_choice` (e.g. `{"type":"web_search"}`) without a tool entry, or the Anthropic tools
 * of a Messages request.
 */
export function vendorTools(request: ChatRequest): VendorTools | undefined {
  const extra = request.extra;
  if (!extra) return undefined;
  const server = typesOf(extra.serverTools);
  if (server.length > 0) return { format: 'messages', types: server };
  const types = typesOf(extra.hostedTools);
  const choice = extra.tool_choice as { type?: unknown } | undefined;
  // allowed_tools only narrows the listed tools (its mode is in the IR); every other raw choice names a hosted tool.
  if (choice && typeof choice === 'object' && choice.type !== 'allowed_tools') {
    const type = String(choice.type ?? 'unknown');
    if (!types.includes(type)) types.push(type);
  }
  return types.length > 0 ? { format: 'responses', types } : undefined;
}

/** True when `model`'s upstream speaks the format that runs `tools`. */
export function canRunVendorTools(model: CatalogModel, tools: VendorTools): boolean {
  return model.formats.includes(tools.format);
}

/** The model's `hostedTools` policy, else its provider's, else 'drop'. */
export function hostedToolsPolicy(model: CatalogModel): HostedToolsPolicy {
  return model.spec.hostedTools ?? model.provider.hostedTools ?? 'drop';
}

/** True when `model` may serve a request with `tools`: it runs them, or its policy drops them. */
export function canServeVendorTools(model: CatalogModel, tools: VendorTools): boolean {
  return canRunVendorTools(model, tools) || hostedToolsPolicy(model) === 'drop';
}

/** 422 naming the vendor tools and the model that cannot run them (policy 'reject'). */
export function vendorToolsError(tools: VendorTools, model: string): GatewayError {
  const names = tools.types.map((t) => `'${t}'`).join(', ');
  const kind = tools.format === 'messages' ? 'Anthropic tool' : 'hosted tool';
  const api = API_NAME[tools.format];
  return validationError(
    { tools: `${kind} ${names} cannot run on model '${model}': its upstream does not speak ${api}` },
    `${kind[0].toUpperCase()}${kind.slice(1)} ${names} is not supported by model '${model}' (its upstream does not speak ${api}); remove the tool or pick a model served by an upstream speaking ${api}.`,
  );
}
