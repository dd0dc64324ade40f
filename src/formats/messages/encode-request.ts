import type { ChatRequest, ReasoningConfig, ToolChoice, ToolDefinition } from '../../ir/index.ts';
import { validationError } from '../../errors/index.ts';
import type { EncodeRequestOptions } from '../types.ts';
import { MIN_BUDGET_TOKENS, adaptForAnthropicThinking, closeObjectSchemas, effortToBudgetTokens, isRecord } from '../shared/index.ts';
import { encodeMessagesConversation } from './encode-messages.ts';
import { placeCacheBreakpoints } from './place-cache-breakpoints.ts';
import type { MessagesBlock } from './types.ts';
import { encodeWebSearchServerTool, isWebSearchServerTool } from './map-web-search.ts';

/** Used when neither the request nor the pipeline gives a max_tokens (Anthropic requires one). */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * IR → an Anthropic Messages request body for an upstream. Applies the thinking adaptation
 * (spec §4.5), requires a single choice (n>1 → 422), always sets `max_tokens` and keeps it
 * above the thinking budget, and clamps temperature to Anthropic's 0–1.
 */
export function encodeMessagesRequest(input: ChatRequest, options: EncodeRequestOptions): Record<string, unknown> {
  if (input.n !== undefined && input.n > 1) {
    throw validationError({ n: 'must be 1: the upstream (Anthropic Messages) returns a single choice' });
  }
  const request = adaptForAnthropicThinking(input);
  const { system, messages } = encodeMessagesConversation(request);
  const budget = thinkingBudget(request.reasoning);
  const base = request.maxTokens ?? options.defaultMaxTokens ?? DEFAULT_MAX_TOKENS;
  const { serverTools, ...extra } = request.extra ?? {};
  const body: Record<string, unknown> = { ...extra, model: options.upstreamModel };
  // The thinking budget counts toward max_tokens and must stay below it: add it on top when needed.
  body.max_tokens = budget !== undefined && base <= budget ? budget + base : base;
  if (system.length > 0) body.system = encodeSystem(system);
  body.messages = messages;
  if (request.stream) body.stream = true;
  if (budget !== undefined) body.thinking = { type: 'enabled', budget_tokens: budget };
  if (request.temperature !== undefined) body.temperature = Math.min(Math.max(request.temperature, 0), 1);
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) body.top_k = request.topK;
  if (request.stop && request.stop.length > 0) body.stop_sequences = request.stop;
  const tools = [...(request.tools ?? []).map(encodeTool), ...(Array.isArray(serverTools) ? (serverTools as Record<string, unknown>[]) : [])];
  // A client of another format asked for a hosted web search: Anthropic's server tool runs it.
  if (request.webSearch && !tools.some(isWebSearchServerTool)) tools.push(encodeWebSearchServerTool(request.webSearch));
  if (tools.length > 0) {
    body.tools = tools;
    const choice = encodeToolChoice(request.toolChoice, request.parallelToolCalls);
    if (choice) body.tool_choice = choice;
  }
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  if (request.responseFormat?.type === 'json_schema' && request.responseFormat.schema) {
    const config = isRecord(body.output_config) ? body.output_config : {};
    // Anthropic wants every object closed; a Gemini client's schema and a non-strict OpenAI one leave that unsaid.
    body.output_config = { ...config, format: { type: 'json_schema', schema: closeObjectSchemas(request.responseFormat.schema) } };
  }
  if (options.autoCache) placeCacheBreakpoints(body);
  return body;
}

/** One plain text block reads best as a string; cache markers need the block form. */
function encodeSystem(system: MessagesBlock[]): string | MessagesBlock[] {
  return system.length === 1 && system[0].cache_control === undefined ? (system[0].text as string) : system;
}

/** Budget tokens when thinking is on: explicit budget, else the effort's (medium by default), at least 1024. */
function thinkingBudget(reasoning: ReasoningConfig | undefined): number | undefined {
  if (!reasoning?.enabled || reasoning.effort === 'none') return undefined;
  const budget = reasoning.budgetTokens ?? effortToBudgetTokens(reasoning.effort ?? 'medium') ?? MIN_BUDGET_TOKENS;
  return Math.max(budget, MIN_BUDGET_TOKENS);
}

/** IR tool → Anthropic client tool; a missing schema becomes the empty object schema Anthropic requires. */
export function encodeTool(tool: ToolDefinition): Record<string, unknown> {
  const params = tool.parameters;
  const schema = !params || Object.keys(params).length === 0 ? { type: 'object', properties: {} } : params.type === undefined ? { type: 'object', ...params } : params;
  const out: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) out.description = tool.description;
  out.input_schema = schema;
  if (tool.cacheControl) out.cache_control = tool.cacheControl;
  return out;
}

/** `parallel_tool_calls:false` ↔ `disable_parallel_tool_use:true`, on `{type:"auto"}` when no choice was given. */
function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): Record<string, unknown> | undefined {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disable };
  if (typeof choice === 'object') return { type: 'tool', name: choice.name, ...disable };
  if (choice === 'auto' || parallel === false) return { type: 'auto', ...disable };
  return undefined;
}
