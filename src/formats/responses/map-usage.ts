import type { ImageToolUsage, Usage } from '../../ir/index.ts';

/** The Responses usage object (wire-formats §3.5). */
export interface WireUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** Wire usage → IR; same conventions (input includes cached), so fields map one to one. */
export function decodeUsage(value: unknown): Usage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const wire = record(value);
  const input = record(wire.input_tokens_details);
  const output = record(wire.output_tokens_details);
  const usage: Usage = { inputTokens: num(wire.input_tokens) ?? 0, outputTokens: num(wire.output_tokens) ?? 0 };
  const cached = num(input.cached_tokens);
  const cacheWrite = num(input.cache_write_tokens);
  const reasoning = num(output.reasoning_tokens);
  if (cached) usage.cacheReadTokens = cached;
  if (cacheWrite) usage.cacheWriteTokens = cacheWrite;
  if (reasoning) usage.reasoningTokens = reasoning;
  return usage;
}

/** The `web_search_call` items of a response's `output` (OpenAI bills each hosted web-search call). */
export function countWebSearchCalls(output: unknown): number {
  if (!Array.isArray(output)) return 0;
  let calls = 0;
  for (const item of output) if (typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'web_search_call') calls++;
  return calls;
}

/**
 * OpenAI's image tool in a response: the images it made (`image_generation_call` items), its own
 * tokens (`tool_usage.image_gen`, billed apart from `usage`) and its model (the echoed tool's
 * `model`); undefined when it made nothing and reports nothing.
 */
export function decodeImageToolUsage(response: Record<string, unknown>): ImageToolUsage | undefined {
  const output = Array.isArray(response.output) ? response.output : [];
  const images = output.filter((item) => record(item).type === 'image_generation_call' && record(item).status !== 'failed').length;
  const tool = record(record(response.tool_usage).image_gen);
  const inputTokens = num(tool.input_tokens) ?? 0;
  const outputTokens = num(tool.output_tokens) ?? 0;
  if (images === 0 && inputTokens === 0 && outputTokens === 0) return undefined;
  const usage: ImageToolUsage = { images, inputTokens, outputTokens };
  const declared = Array.isArray(response.tools) ? response.tools.map(record).find((t) => t.type === 'image_generation') : undefined;
  if (typeof declared?.model === 'string' && declared.model) usage.model = declared.model;
  return usage;
}

/**
 * A response object's usage → IR, its `web_search_call` items counted into
 * `webSearchRequests` (the usage object itself carries no count; `searches` is a count the
 * caller saw elsewhere, a stream's items: the larger one wins) and what the image tool made and
 * used into `imageGeneration`.
 */
export function decodeResponseUsage(response: Record<string, unknown>, searches = 0): Usage | undefined {
  const usage = decodeUsage(response.usage);
  const calls = Math.max(searches, countWebSearchCalls(response.output));
  if (usage && calls > 0) usage.webSearchRequests = calls;
  const images = usage && decodeImageToolUsage(response);
  if (images) usage.imageGeneration = images;
  return usage;
}

/** IR usage → wire usage. */
export function encodeUsage(usage: Usage): WireUsage {
  const wire: WireUsage = {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
  if (usage.cacheWriteTokens) wire.input_tokens_details.cache_write_tokens = usage.cacheWriteTokens;
  return wire;
}
