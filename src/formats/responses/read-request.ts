import type { ChatRequest } from '../../ir/index.ts';
import type { ImageToolRequest, InboundBody, RequestFacts, VendorTools } from '../types.ts';
import { budgetOfEffort, FieldChecker, isRecord, isWebSearchType, measureInput, mediaByType, requireObjectItems, setOutputCap } from '../shared/index.ts';
import { requireResponsesBody } from './require-body.ts';
import { isWebSearchToolType } from './map-web-search.ts';
import { isFunctionNamespace } from './decode-tools.ts';
import { isClientShellTool } from './map-shell-tools.ts';

/** Content part types that carry media (an image, a file, an audio clip). */
const MEDIA = mediaByType(new Set(['input_image', 'input_file', 'input_audio']));

/**
 * What billing and routing read of a Responses body — all a passthrough reads (the rest is the
 * upstream's to judge): model, stream, `max_output_tokens`, the input bound, `prompt_cache_key`
 * (sticky routing) and the hosted tools only a Responses upstream runs (with `max_tool_calls`,
 * the credit hold's bound on searches).
 */
export function readResponsesRequest({ body: raw }: InboundBody): RequestFacts {
  const body = requireResponsesBody(raw);
  if (Array.isArray(body.input)) requireObjectItems(body.input, 'input', { strings: true });
  const check = new FieldChecker();
  const stream = check.boolean(body.stream, 'stream') ?? false;
  const maxTokens = check.number(body.max_output_tokens, 'max_output_tokens', { min: 1, integer: true });
  const promptCacheKey = check.string(body.prompt_cache_key, 'prompt_cache_key');
  check.throwIfAny();
  const input = measureInput([body.instructions, body.input, body.tools, body.text], MEDIA);
  const facts: RequestFacts = { model: body.model, stream, inputBound: input.bound, inputEstimate: input.estimate };
  // With reasoning asked over a smaller cap, a converted request may be answered its budget on top (setOutputCap).
  const reasoning = body.reasoning;
  // OpenRouter's `reasoning.max_tokens` is the budget itself; its `enabled: false` asks for none.
  if (maxTokens !== undefined) setOutputCap(facts, maxTokens, isRecord(reasoning) && reasoning.enabled !== false ? [typeof reasoning.max_tokens === 'number' ? reasoning.max_tokens : budgetOfEffort(reasoning.effort ?? 'medium')] : []);
  if (promptCacheKey !== undefined) facts.promptCacheKey = promptCacheKey;
  const hosted = hostedToolTypes(body.tools, body.tool_choice);
  const searches = Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && isWebSearchToolType(tool.type));
  if (hosted.length > 0) facts.vendorTools = vendorToolsOf(hosted, searches, body.max_tool_calls, body.tools);
  return facts;
}

/**
 * The hosted tools, their web search, and `max_tool_calls` (a positive integer: the most
 * built-in tool calls the response makes, so its searches too) as the credit hold's bound on
 * searches, like Anthropic's `max_uses`; any other value is the upstream's to judge.
 */
function vendorToolsOf(types: string[], searches: boolean, maxToolCalls: unknown, list: unknown): VendorTools {
  const tools: VendorTools = { format: 'responses', types, webSearch: searches ? types.filter(isWebSearchType) : [] };
  const bound = Number.isInteger(maxToolCalls) && (maxToolCalls as number) > 0 ? (maxToolCalls as number) : undefined;
  if (searches && bound !== undefined) tools.maxUses = bound;
  const image = types.includes('image_generation') ? imageToolOf(list, bound) : undefined;
  if (image) tools.imageGeneration = image;
  return tools;
}

/** The first `image_generation` tool's model, quality, size and partial images (strings and counts only; the rest is the upstream's to judge). */
function imageToolOf(list: unknown, maxToolCalls: number | undefined): ImageToolRequest | undefined {
  const tool = Array.isArray(list) ? list.find((entry) => isRecord(entry) && entry.type === 'image_generation') : undefined;
  if (!isRecord(tool)) return undefined;
  const image: ImageToolRequest = { calls: maxToolCalls ?? 1 };
  if (typeof tool.model === 'string') image.model = tool.model;
  if (typeof tool.quality === 'string') image.quality = tool.quality;
  if (typeof tool.size === 'string') image.size = tool.size;
  if (Number.isInteger(tool.partial_images) && (tool.partial_images as number) > 0) image.partialImages = tool.partial_images as number;
  return image;
}

/** Tools the client runs itself (a `custom` one takes free text, `local_shell` a command): any upstream can be offered them. */
const CLIENT_TOOL_TYPES: ReadonlySet<unknown> = new Set(['function', 'custom', 'local_shell']);

/** The hosted tools' types (every tool but the client's own and function namespaces), and one a `tool_choice` forces. */
function hostedToolTypes(tools: unknown, choice: unknown): string[] {
  const types: string[] = [];
  if (Array.isArray(tools)) {
    for (const tool of tools) if (isRecord(tool) && !CLIENT_TOOL_TYPES.has(tool.type) && !isFunctionNamespace(tool) && !isClientShellTool(tool)) types.push(String(tool.type ?? 'unknown'));
  }
  // allowed_tools only narrows the listed tools; a function or custom choice names the client's own tool.
  if (isRecord(choice) && !CLIENT_TOOL_TYPES.has(choice.type) && choice.type !== 'allowed_tools' && !isClientShellTool(choice)) {
    const type = String(choice.type ?? 'unknown');
    if (!types.includes(type)) types.push(type);
  }
  return types;
}

/**
 * The hosted tools of a decoded request (its decoder keeps them raw in `extra.hostedTools`),
 * including one a raw `tool_choice` forces without a tool entry (the IR holds function and
 * `allowed_tools` choices itself), its web search (and `max_tool_calls`) among them.
 */
export function responsesVendorTools(request: ChatRequest): VendorTools | undefined {
  const types = hostedToolTypes(request.extra?.hostedTools, request.extra?.tool_choice);
  return types.length > 0 ? vendorToolsOf(types, Boolean(request.webSearch), request.extra?.max_tool_calls, request.extra?.hostedTools) : undefined;
}
