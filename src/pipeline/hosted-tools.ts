import { validationError, type GatewayError } from '../errors/index.ts';
import { getFormat, type VendorTools } from '../formats/index.ts';
import type { ChatRequest, WireFormat } from '../ir/index.ts';
import type { HostedToolsPolicy } from '../plugin-kit/index.ts';
import type { CatalogModel } from '../providers/index.ts';

/**
 * Tools only one vendor's API can run, carried raw in `extra` because the IR has no slot for
 * them: Responses hosted tools (web_search, file_search, mcp, …) and Anthropic-defined tools
 * (web_search_…, code_execution_…, bash_…); Gemini's googleSearch. Another format would drop
 * them silently. Each format's face says which are its own (`vendorTools`). A hosted
 * web search is the exception: the IR carries it (`ChatRequest.webSearch`), so every format
 * whose face says `hostedWebSearch` runs it. (The type is the format face's: a passthrough
 * reads it from the raw body, `RequestFacts.vendorTools`.)
 */
export type { VendorTools };

/**
 * The vendor tools a request carries, if any, as the client's format tells them from its IR
 * (`vendorTools.read` of the face: Responses hosted tools, a forced one included; Anthropic
 * tools; Gemini's googleSearch); a format that says nothing: the IR's web search, run by that
 * format and those with a hosted web search.
 */
export function vendorTools(request: ChatRequest, format: WireFormat): VendorTools | undefined {
  const read = getFormat(format).vendorTools?.read;
  if (read) return read(request);
  return request.webSearch ? { format, types: ['web_search'], webSearch: ['web_search'] } : undefined;
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
  const face = getFormat(tools.format);
  const kind = face.vendorTools?.kind ?? 'hosted tool';
  const api = face.vendorTools?.api ?? face.title;
  return validationError(
    { tools: `${kind} ${names} cannot run on model '${model}': its upstream does not speak ${api}` },
    `${kind[0].toUpperCase()}${kind.slice(1)} ${names} is not supported by model '${model}' (its upstream does not speak ${api}); remove the tool or pick a model served by an upstream speaking ${api}.`,
  );
}
