import { validationError, type GatewayError } from '../errors/index.ts';
import { getFormat, isWebSearchType, type VendorTools } from '../formats/index.ts';
import type { ChatRequest, WireFormat } from '../ir/index.ts';
import type { HostedToolsPolicy } from '../plugin-kit/index.ts';
import type { CatalogModel } from '../providers/index.ts';

/**
 * Tools only one vendor's API can run, carried raw in `extra` because the IR has no slot for
 * them: Responses hosted tools (web_search, file_search, mcp, …) and Anthropic-defined tools
 * (web_search_…, code_execution_…, bash_…). Another format would drop them silently. A hosted
 * web search is the exception: the IR carries it (`ChatRequest.webSearch`), so every format
 * whose face says `hostedWebSearch` runs it. (The type is the format face's: a passthrough
 * reads it from the raw body, `RequestFacts.vendorTools`.)
 */
export type { VendorTools };

const API_NAME: Record<string, string> = { responses: 'the Responses API', messages: 'the Anthropic Messages API', chat: 'Chat Completions with web search' };

function typesOf(list: unknown): string[] {
  return Array.isArray(list) ? list.map((tool) => String((tool as { type?: unknown }).type ?? 'unknown')) : [];
}

/**
 * The vendor tools a request carries, if any: the Responses hosted tools, including one forced
 * by `tool_choice` (e.g. `{"type":"web_search"}`) without a tool entry, the Anthropic tools
 * of a Messages request, or a Chat request's `web_search_options`.
 */
export function vendorTools(request: ChatRequest): VendorTools | undefined {
  const extra = request.extra ?? {};
  const search = (types: string[]): string[] => (request.webSearch ? types.filter(isWebSearchType) : []);
  const server = typesOf(extra.serverTools);
  if (server.length > 0) return { format: 'messages', types: server, webSearch: search(server) };
  const types = typesOf(extra.hostedTools);
  const choice = extra.tool_choice as { type?: unknown } | undefined;
  // allowed_tools only narrows the listed tools (its mode is in the IR); every other raw choice names a hosted tool.
  if (choice && typeof choice === 'object' && choice.type !== 'allowed_tools') {
    const type = String(choice.type ?? 'unknown');
    if (!types.includes(type)) types.push(type);
  }
  if (types.length > 0) return { format: 'responses', types, webSearch: search(types) };
  return request.webSearch ? { format: 'chat', types: ['web_search'], webSearch: ['web_search'] } : undefined;
}

/** The tools an upstream of `format` cannot run (a web search runs wherever the format has one). */
export function unrunnableTools(tools: VendorTools, format: WireFormat): string[] {
  if (format === tools.format) return [];
  const searches = getFormat(format).hostedWebSearch === true;
  return tools.types.filter((type) => !(searches && tools.webSearch.includes(type)));
}

/** True when `model`'s upstream speaks a format that runs `tools`. */
export function canRunVendorTools(model: CatalogModel, tools: VendorTools): boolean {
  return model.formats.some((format) => unrunnableTools(tools, format).length === 0);
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
export function vendorToolsError(tools: VendorTools, model: string, types = tools.types): GatewayError {
  const names = types.map((t) => `'${t}'`).join(', ');
  const kind = tools.format === 'messages' ? 'Anthropic tool' : 'hosted tool';
  const api = API_NAME[tools.format] ?? tools.format;
  return validationError(
    { tools: `${kind} ${names} cannot run on model '${model}': its upstream does not speak ${api}` },
    `${kind[0].toUpperCase()}${kind.slice(1)} ${names} is not supported by model '${model}' (its upstream does not speak ${api}); remove the tool or pick a model served by an upstream speaking ${api}.`,
  );
}
