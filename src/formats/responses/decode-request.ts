import { z } from 'zod';
import { conversationIdOf, requireResponsesBody } from './require-body.ts';
import type { ChatRequest, TextPart, Unconvertible } from '../../ir/index.ts';
import { hasCompactionTrigger } from './compaction.ts';
import { decodeInput, type DecodeInputOptions } from './decode-input.ts';
import { decodeReasoning, decodeText } from './decode-settings.ts';
import { decodeToolChoice, decodeTools } from './decode-tools.ts';
import { LOGPROBS_INCLUDE } from './encode-request.ts';
import { parseOrThrow } from './validate.ts';

const scalarsSchema = z.looseObject({
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  prompt_cache_retention: z.string().nullish(),
  prompt_cache_options: z.record(z.string(), z.unknown()).nullish(),
  service_tier: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  include: z.array(z.string()).nullish(),
});

/** Body fields this codec maps; everything else goes to `extra` untouched. */
const KNOWN_FIELDS = new Set([
  'model', 'input', 'instructions', 'stream', 'max_output_tokens', 'temperature', 'top_p', 'parallel_tool_calls',
  'store', 'previous_response_id', 'conversation', 'metadata', 'user', 'reasoning', 'text', 'tools', 'tool_choice',
  'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options',
]);

/** Options of {@link decodeResponsesRequest}. */
export interface DecodeRequestOptions {
  /** Resolves `item_reference` ids (e.g. from stored responses); without it they must point into the same input. */
  resolveItemReference?: DecodeInputOptions['resolveItemReference'];
}

function copyExtra(body: Record<string, unknown>): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!KNOWN_FIELDS.has(key)) extra[key] = value;
  return extra;
}

/** A Responses request body → IR; 400 for a wrong shape, 422 (with field paths) for invalid values. */
export function decodeResponsesRequest(body: unknown, options: DecodeRequestOptions = {}): ChatRequest {
  const raw = requireResponsesBody(body);
  const scalars = parseOrThrow(scalarsSchema, raw, []);
  const extra = copyExtra(raw);

  const unresolved: string[] = [];
  const unconvertible: Unconvertible[] = [];
  const request: ChatRequest = {
    model: raw.model,
    system: scalars.instructions ? [{ type: 'text', text: scalars.instructions } satisfies TextPart] : [],
    messages: decodeInput(raw.input ?? [], {
      hasServerHistory: Boolean(scalars.previous_response_id) || raw.conversation != null,
      resolveItemReference: options.resolveItemReference,
      unresolved,
      unconvertible,
    }),
    stream: scalars.stream ?? false,
  };
  if (unresolved.length > 0) request.unresolvedReferences = unresolved;
  if (hasCompactionTrigger(raw)) request.compaction = true;
  // A prompt template is kept by the OpenAI organization that made it (its instructions, often its input): dropped, the model would answer without them.
  if (raw.prompt !== undefined && raw.prompt !== null) {
    unconvertible.push({ field: 'prompt', message: 'is a prompt template of an OpenAI organization; it can only go to an OpenAI Responses upstream (send its instructions and input instead)' });
  }
  if (unconvertible.length > 0) request.unconvertible = unconvertible;
  if (scalars.max_output_tokens != null) request.maxTokens = scalars.max_output_tokens;
  if (scalars.temperature != null) request.temperature = scalars.temperature;
  if (scalars.top_p != null) request.topP = scalars.top_p;
  if (scalars.parallel_tool_calls != null) request.parallelToolCalls = scalars.parallel_tool_calls;
  if (scalars.store != null) request.store = scalars.store;
  if (scalars.previous_response_id) request.previousResponseId = scalars.previous_response_id;
  const conversationId = conversationIdOf(raw);
  if (conversationId !== undefined) request.conversationId = conversationId;
  if (scalars.metadata) request.metadata = scalars.metadata;
  if (scalars.user) request.user = scalars.user;
  if (scalars.prompt_cache_key) request.promptCacheKey = scalars.prompt_cache_key;
  if (scalars.prompt_cache_retention) request.promptCacheRetention = scalars.prompt_cache_retention;
  if (scalars.prompt_cache_options) request.promptCacheOptions = scalars.prompt_cache_options;
  // Also left in `extra` (not KNOWN_FIELDS): a Responses upstream takes them as written; a Chat upstream gets them from here.
  if (scalars.service_tier) request.serviceTier = scalars.service_tier;
  if (scalars.safety_identifier) request.safetyIdentifier = scalars.safety_identifier;
  if (scalars.include?.includes(LOGPROBS_INCLUDE)) request.logprobs = true;
  if (scalars.top_logprobs != null) request.topLogprobs = scalars.top_logprobs;
  if (raw.reasoning != null) request.reasoning = decodeReasoning(raw.reasoning);

  if (raw.text != null) {
    const text = decodeText(raw.text);
    if (text.responseFormat) request.responseFormat = text.responseFormat;
    if (text.rest) extra.text = text.rest;
    // Chat's top-level `verbosity` (gpt-5): a Chat upstream gets it from here.
    if (typeof text.rest?.verbosity === 'string') request.verbosity = text.rest.verbosity;
  }
  if (raw.tools != null) {
    const { tools, hostedTools, webSearch } = decodeTools(raw.tools);
    if (tools.length > 0) request.tools = tools;
    if (webSearch) request.webSearch = webSearch;
    if (hostedTools.length > 0) extra.hostedTools = hostedTools;
  }
  if (raw.tool_choice != null) {
    const choice = decodeToolChoice(raw.tool_choice);
    if (choice.toolChoice) request.toolChoice = choice.toolChoice;
    if (choice.raw) extra.tool_choice = choice.raw;
  }
  if (Object.keys(extra).length > 0) request.extra = extra;
  return request;
}
