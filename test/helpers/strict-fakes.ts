/**
 * Strict fake upstreams for the coding-agent tests (issue 24): each speaks one wire format and
 * rejects what the real API rejects — unknown body parameters, an output cap over the model's
 * limit, reasoning parameters on a model without reasoning, tool types the API lacks, an
 * Anthropic assistant tool turn whose thinking signature is missing, an Anthropic thinking block
 * whose signature this fake never issued (another model's, the gateway's carried data, ""), an OpenAI `user` over 64 characters, a Messages conversation
 * opening with a `system` turn, an `item_reference` it cannot resolve. The script is
 * the agent loop: turn 1 a call of the tool `pick` chooses, then a final text once a tool
 * result is in the conversation.
 */
import crypto from 'node:crypto';
import type { WireFormat } from '../../src/ir/types.ts';
import { startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';
import { chatReply, messagesReply, responsesReply, type Turn } from './strict-fake-replies.ts';

type Json = Record<string, any>;

export interface StrictModel {
  maxOutput: number;
  reasoning: boolean;
  /**
   * The model behind the name asked for, when that name is not it (an Azure deployment
   * `my-gpt5-prod` of gpt-5): the per-model checks (stop, sampling, efforts) read this, as Azure
   * applies the deployed model's rules whatever the deployment is called. Default: the name.
   */
  id?: string;
}

/** A tool the fake calls on turn 1: its name (as the upstream sees it) and arguments. */
export interface ToolPick {
  name: string;
  input: Record<string, unknown>;
}

export interface StrictFakeOptions {
  format: WireFormat;
  models: Record<string, StrictModel>;
  /** Chooses the tool call of turn 1 (several: parallel calls) from the tool names the request offers; undefined answers with text. */
  pick?: (toolNames: string[], body: Json) => ToolPick | ToolPick[] | undefined;
  /** The final text once a tool result arrived. */
  finalText?: string;
  /** How many tool calls (one per turn) before the final text; default 1. */
  toolTurns?: number;
  /**
   * Provider-side prompt cache: `lookup` is the prefix this request could reuse, `store` what it
   * leaves cached; input tokens are reported as cached when this fake stored `lookup` before.
   */
  cacheKey?: (body: Json) => { lookup: string; store: string } | undefined;
  /** Responses: the account's organization is not verified, so a reasoning summary is refused (400, param `reasoning.summary`), as OpenAI does. */
  unverifiedOrganization?: boolean;
  /** Responses: a streamed text goes in deltas of this many characters (default: one delta). */
  deltaSize?: number;
}

export interface StrictFake extends FakeUpstream {
  /** The 400s the fake answered, with their messages (a test asserts there were none). */
  rejections: string[];
  /** Requests that reported a cache hit (see `cacheKey`). */
  cacheHits: number;
}

const CHAT_KEYS = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n', 'stop', 'seed',
  'presence_penalty', 'frequency_penalty', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning_effort', 'response_format', 'user',
  'prompt_cache_key', 'prompt_cache_retention', 'metadata', 'store', 'logprobs', 'top_logprobs', 'logit_bias', 'service_tier',
  'modalities', 'audio', 'prediction', 'web_search_options', 'verbosity', 'safety_identifier',
]);
const RESPONSES_KEYS = new Set([
  'model', 'input', 'instructions', 'stream', 'stream_options', 'max_output_tokens', 'temperature', 'top_p', 'tools', 'tool_choice',
  'parallel_tool_calls', 'reasoning', 'text', 'store', 'metadata', 'user', 'prompt_cache_key', 'prompt_cache_retention', 'include',
  'previous_response_id', 'truncation', 'service_tier', 'background', 'safety_identifier', 'client_metadata', 'max_tool_calls',
  'top_logprobs', 'prompt', 'conversation',
]);
/** What POST /v1/responses/compact takes (openai SDK ResponseCompactParams, and what Codex's CompactionInput adds). */
const COMPACT_KEYS = new Set(['model', 'input', 'instructions', 'previous_response_id', 'prompt_cache_key', 'tools', 'parallel_tool_calls', 'reasoning', 'text', 'service_tier']);
const MESSAGES_KEYS = new Set([
  'model', 'messages', 'system', 'max_tokens', 'stream', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'tools', 'tool_choice',
  'thinking', 'metadata', 'output_config', 'context_management', 'service_tier', 'container', 'mcp_servers', 'speed',
]);
const RESPONSES_TOOL_TYPES = new Set(['function', 'namespace', 'web_search', 'web_search_preview', 'file_search', 'custom', 'local_shell', 'image_generation', 'mcp', 'code_interpreter', 'computer_use_preview', 'tool_search']);
const OPENAI_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ANTHROPIC_TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** The `encrypted_content` of the compaction items this fake issues (OpenAI's are Fernet tokens, `gAAAAB…`). */
const UPSTREAM_COMPACTION = 'gAAAAB-opaque-upstream-compaction';

class Rejection extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

function reject(message: string, param: string | null = null, code: string | null = null): never {
  throw new Rejection(message, param, code);
}

function checkKeys(body: Json, allowed: Set<string>, say: (key: string) => string): void {
  for (const key of Object.keys(body)) if (!allowed.has(key)) reject(say(key));
}

function checkCap(value: unknown, field: string, model: StrictModel, id: string): void {
  if (typeof value === 'number' && value > model.maxOutput) reject(`${field}: ${value} > ${model.maxOutput}, which is the maximum allowed number of output tokens for ${id}`);
}

/**
 * The reasoning efforts OpenAI's reasoning models take (OpenAI's reasoning guide and the SDKs'
 * ReasoningEffort notes): o-series low–high, gpt-5/-mini/-nano minimal–high, gpt-5.1 none–high,
 * gpt-5.2 none–xhigh, gpt-5.1 and later -chat-latest medium only. Other ids are not checked.
 */
function openAIEfforts(model: string): string[] | undefined {
  if (/^o\d/.test(model)) return ['low', 'medium', 'high'];
  if (/^gpt-5\.\d+-chat/.test(model)) return ['medium'];
  if (/^gpt-5(?:-mini|-nano)?(?:$|-\d{4})/.test(model)) return ['minimal', 'low', 'medium', 'high'];
  if (/^gpt-5\.1(?:$|-\d{4})/.test(model)) return ['none', 'low', 'medium', 'high'];
  if (/^gpt-5\.2(?:$|-\d{4})/.test(model)) return ['none', 'low', 'medium', 'high', 'xhigh'];
  return undefined;
}

/**
 * OpenAI's reasoning models take only the default sampling: "Unsupported value: 'temperature' does
 * not support 0.2 with this model. Only the default (1) value is supported." (gpt-5.1 and later
 * take it with reasoning effort none; gpt-5-chat-latest is no reasoning model).
 */
function checkSampling(body: Json, model: StrictModel, effort: unknown): void {
  const id = model.id ?? body.model;
  if (!model.reasoning || !/^(?:o\d|gpt-5)/.test(id) || /^gpt-5-chat/.test(id) || effort === 'none') return;
  for (const field of ['temperature', 'top_p']) {
    if (body[field] !== undefined && body[field] !== 1) reject(`Unsupported value: '${field}' does not support ${body[field]} with this model. Only the default (1) value is supported.`);
  }
}

/**
 * OpenAI's reasoning models refuse stop sequences on Chat: "Unsupported parameter: 'stop' is not
 * supported with this model." (o1, o3, o4-mini, gpt-5; gpt-5-chat-latest takes them).
 */
function checkStop(body: Json, model: StrictModel): void {
  const id = model.id ?? body.model;
  if (!model.reasoning || !/^(?:o\d|gpt-5)/.test(id) || /^gpt-5-chat/.test(id)) return;
  if (body.stop !== undefined && body.stop !== null) reject(`Unsupported parameter: 'stop' is not supported with this model.`);
}

/** OpenAI's answer to a reasoning summary asked by an organization it has not verified. */
export const UNVERIFIED_SUMMARY =
  'Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.';

function checkEffort(effort: unknown, field: string, model: string): void {
  const efforts = openAIEfforts(model);
  if (effort === undefined || !efforts || efforts.includes(effort as string)) return;
  reject(`Unsupported value: '${field}' does not support '${String(effort)}' with this model. Supported values are: ${efforts.map((e) => `'${e}'`).join(', ')}.`);
}

/** OpenAI refuses a `user` over 64 characters (Claude Code's `metadata.user_id` is ~150). */
function checkUser(body: Json): void {
  if (typeof body.user === 'string' && body.user.length > 64) reject(`Invalid 'user': string too long. Expected a string with maximum length 64, but got a string with length ${body.user.length} instead.`);
}

function checkChat(body: Json, model: StrictModel): void {
  checkKeys(body, CHAT_KEYS, (key) => `Unrecognized request argument supplied: ${key}`);
  checkUser(body);
  checkCap(body.max_tokens ?? body.max_completion_tokens, body.max_tokens !== undefined ? 'max_tokens' : 'max_completion_tokens', model, body.model);
  if (body.reasoning_effort !== undefined && !model.reasoning) reject(`Unsupported parameter: 'reasoning_effort' is not supported with this model.`);
  checkEffort(body.reasoning_effort, 'reasoning_effort', model.id ?? body.model);
  checkSampling(body, model, body.reasoning_effort);
  checkStop(body, model);
  for (const tool of body.tools ?? []) {
    if (tool.type !== 'function') reject(`Invalid value: '${tool.type}'. Supported values are: 'function' and 'custom'.`);
    if (!OPENAI_TOOL_NAME.test(tool.function?.name ?? '')) reject(`Invalid 'tools[].function.name': string does not match pattern.`);
  }
  (body.messages ?? []).forEach((message: Json, i: number) => {
    if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(message.role)) reject(`Invalid value: '${message.role}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'developer'.`);
    // OpenAI caps a tool call's id at 40 characters (on the call and on the tool message that answers it).
    (message.tool_calls ?? []).forEach((call: Json, j: number) => {
      if (typeof call.id === 'string' && call.id.length > 40) reject(`Invalid 'messages[${i}].tool_calls[${j}].id': string too long. Expected a string with maximum length 40, but got a string with length ${call.id.length} instead.`);
    });
    // Images go only in user messages (OpenAI's words); an image model's `images` is no OpenAI field.
    if (message.role !== 'user' && Array.isArray(message.content) && message.content.some((part: Json) => part.type === 'image_url')) reject(`Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role '${message.role}' contains an image URL.`);
    if (message.images !== undefined) reject(`Additional properties are not allowed ('images' was unexpected) - 'messages.${i}'`);
    if (typeof message.tool_call_id === 'string' && message.tool_call_id.length > 40) reject(`Invalid 'messages[${i}].tool_call_id': string too long. Expected a string with maximum length 40, but got a string with length ${message.tool_call_id.length} instead.`);
  });
  if (body.response_format?.type === 'json_object' && !JSON.stringify(body.messages).toLowerCase().includes('json')) reject(`'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.`);
}

/**
 * OpenAI pairs a reasoning item with the call item that followed it in its answer, by id: the
 * reasoning goes back only followed by that very item ("Item 'rs_…' of type 'reasoning' was
 * provided without its required following item.", seen for a call item under another id), and
 * the call item only right after its reasoning ("Item 'fc_…' of type 'function_call' was provided
 * without its required 'reasoning' item: 'rs_…'."). A call item sent back without an id is let
 * through (the OpenAI Agents SDK's sessions replay calls so; what the API says to it is not
 * settled). `pairs` maps each issued reasoning id to its call's id and back.
 */
function checkPairing(input: Json[], pairs: Map<string, string>): void {
  input.forEach((item: Json, i: number) => {
    const id = typeof item.id === 'string' ? item.id : undefined;
    if (id === undefined || !pairs.has(id)) return;
    const partner = pairs.get(id)!;
    const next = input[i + 1];
    if (item.type === 'reasoning' && next?.type === 'function_call' && typeof next.id === 'string' && next.id !== partner) reject(`Item '${id}' of type 'reasoning' was provided without its required following item.`);
    if (item.type === 'function_call' && input[i - 1]?.id !== partner) reject(`Item '${id}' of type 'function_call' was provided without its required 'reasoning' item: '${partner}'.`);
  });
}

function checkResponses(body: Json, model: StrictModel, known: Map<string, Json>, pairs: Map<string, string> = new Map(), unverified = false, encrypted: Set<string> = new Set()): void {
  checkKeys(body, RESPONSES_KEYS, (key) => `Unknown parameter: '${key}'.`);
  // OpenAI's reasoning object takes effort and summary (generate_summary, deprecated) only: OpenRouter's max_tokens, enabled, exclude are unknown.
  for (const key of Object.keys(body.reasoning ?? {})) if (!['effort', 'summary', 'generate_summary'].includes(key)) reject(`Unknown parameter: 'reasoning.${key}'.`, `reasoning.${key}`, 'unknown_parameter');
  if (unverified && body.reasoning?.summary != null) reject(UNVERIFIED_SUMMARY, 'reasoning.summary', 'unsupported_value');
  checkUser(body);
  checkCap(body.max_output_tokens, 'max_output_tokens', model, body.model);
  if (body.reasoning !== undefined && !model.reasoning) reject(`Unsupported parameter: 'reasoning.effort' is not supported with this model.`);
  checkEffort(body.reasoning?.effort, 'reasoning.effort', model.id ?? body.model);
  checkSampling(body, model, body.reasoning?.effort);
  for (const tool of body.tools ?? []) {
    if (!RESPONSES_TOOL_TYPES.has(tool.type)) reject(`Invalid value: '${tool.type}'.`);
    if (tool.type === 'function' && !OPENAI_TOOL_NAME.test(tool.name ?? '')) reject(`Invalid 'tools[].name': string does not match pattern.`);
  }
  if (Array.isArray(body.input)) checkPairing(body.input, pairs);
  (Array.isArray(body.input) ? body.input : []).forEach((item: Json, i: number) => {
    if (item.type === 'item_reference' && !known.has(item.id)) reject(`Item with id '${item.id}' not found.`);
    // OpenAI caps a call id at 64 characters.
    if (typeof item.call_id === 'string' && item.call_id.length > 64) reject(`Invalid 'input[${i}].call_id': string too long. Expected a string with maximum length 64, but got a string with length ${item.call_id.length} instead.`);
    // And an item's id (an image the model made sent back, a function call item) at 64 too.
    if (typeof item.id === 'string' && item.id.length > 64) reject(`Invalid 'input[${i}].id': string too long. Expected a string with maximum length 64, but got a string with length ${item.id.length} instead.`);
    // An image the model made goes back whole: its id, its bytes, its status.
    if (item.type === 'image_generation_call' && (typeof item.id !== 'string' || typeof item.result !== 'string' || typeof item.status !== 'string')) reject(`Missing required parameter: 'input[${i}].${typeof item.id !== 'string' ? 'id' : typeof item.result !== 'string' ? 'result' : 'status'}'.`);
    // An assistant message holds output text and refusals only.
    const stray = item.role === 'assistant' && Array.isArray(item.content) ? item.content.find((part: Json) => part.type !== 'output_text' && part.type !== 'refusal') : undefined;
    if (stray) reject(`Invalid value: '${stray.type}'. Supported values are: 'output_text' and 'refusal'.`);
    // A compaction item is encrypted by OpenAI for OpenAI: anything else cannot be decrypted.
    if (item.type === 'compaction' && item.encrypted_content !== UPSTREAM_COMPACTION) reject('The encrypted content for item compaction could not be verified.');
    // So is a reasoning item's encrypted_content; one without it is looked up by id, which only a stored item has.
    if (item.type === 'reasoning' && typeof item.encrypted_content === 'string' && !encrypted.has(item.encrypted_content)) reject(`The encrypted content for item ${item.id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`, null, 'invalid_encrypted_content');
    if (item.type === 'reasoning' && typeof item.encrypted_content !== 'string' && !known.has(item.id)) reject(`Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, 'input');
  });
}

function checkMessages(body: Json, model: StrictModel, betas: string, issued: Set<string>): void {
  checkKeys(body, MESSAGES_KEYS, (key) => `${key}: Extra inputs are not permitted`);
  if (typeof body.max_tokens !== 'number') reject('max_tokens: Field required');
  // A beta body field without its beta header is a hard 400 (a gateway that strips one half).
  if (body.context_management !== undefined && !betas.includes('context-management-')) reject('context_management: Extra inputs are not permitted');
  checkCap(body.max_tokens, 'max_tokens', model, body.model);
  const thinking = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
  if ((thinking || body.output_config?.effort !== undefined) && !model.reasoning) reject(`thinking: this model does not support extended thinking`);
  for (const tool of body.tools ?? []) {
    if (tool.type !== undefined && tool.type !== 'custom' && !/^web_search_\d+$/.test(tool.type)) reject(`tools: Input tag '${tool.type}' found using 'type' does not match any of the expected tags`);
    if (!ANTHROPIC_TOOL_NAME.test(tool.name ?? '')) reject(`tools.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
  }
  (body.messages ?? []).forEach((message: Json, i: number) => {
    // Every thinking block sent back is verified, whichever turn it is in and whether thinking is on.
    if (message.role === 'assistant' && Array.isArray(message.content)) {
      message.content.forEach((block: Json, j: number) => {
        if (block.type === 'thinking' && !issued.has(block.signature)) reject(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
        if (block.type === 'image') reject(`messages.${i}.content.${j}: 'image' blocks are not permitted within assistant turns`);
      });
    }
    // `system` inside messages is accepted (SDK MessageParam.role; Claude Code 2.1.332 sends it without a beta), never first.
    if (!['user', 'assistant', 'system'].includes(message.role) || (i === 0 && message.role === 'system')) reject(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (!thinking || message.role !== 'assistant' || !Array.isArray(message.content)) return;
    const usesTool = message.content.some((block: Json) => block.type === 'tool_use');
    const first = message.content[0];
    const signed = (first?.type === 'thinking' && typeof first.signature === 'string' && first.signature !== '') || first?.type === 'redacted_thinking';
    const last = (body.messages as Json[]).slice(i + 1).every((m) => m.role !== 'assistant');
    if (usesTool && last && !signed) reject(`messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`);
  });
}

function toolNames(format: WireFormat, body: Json): string[] {
  const tools: Json[] = body.tools ?? [];
  if (format === 'chat') return tools.map((t) => t.function?.name);
  if (format === 'messages') return tools.filter((t) => t.type === undefined || t.type === 'custom').map((t) => t.name);
  return tools.flatMap((t) => (t.type === 'function' ? [t.name] : t.type === 'namespace' ? (t.tools ?? []).map((m: Json) => `${t.name}.${m.name}`) : []));
}

function toolResults(format: WireFormat, body: Json): number {
  if (format === 'chat') return (body.messages ?? []).filter((m: Json) => m.role === 'tool').length;
  if (format === 'messages') return (body.messages ?? []).flatMap((m: Json) => (Array.isArray(m.content) ? m.content : [])).filter((b: Json) => b.type === 'tool_result').length;
  return (Array.isArray(body.input) ? body.input : []).filter((item: Json) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output').length;
}

/** The tool a `tool_choice` forces by name (the AI SDK's JSON-tool mode for structured output), if any. */
function forcedTool(format: WireFormat, body: Json): string | undefined {
  const choice = body.tool_choice;
  // `required` / `any` with a single tool forces that one (what a model then does).
  const only = toolNames(format, body);
  if ((choice === 'required' || choice?.type === 'any') && only.length === 1) return only[0];
  if (typeof choice !== 'object' || choice === null) return undefined;
  if (format === 'chat') return choice.type === 'function' ? choice.function?.name : undefined;
  if (format === 'responses') return choice.type === 'function' ? choice.name : undefined;
  return choice.type === 'tool' ? choice.name : undefined;
}

/** True when the request asks for JSON output (a JSON mode, a schema, or the gateway's JSON instruction). */
function wantsJson(format: WireFormat, body: Json): boolean {
  if (format === 'chat') return body.response_format?.type === 'json_object' || body.response_format?.type === 'json_schema';
  if (format === 'responses') return body.text?.format?.type === 'json_object' || body.text?.format?.type === 'json_schema';
  return body.output_config?.format !== undefined || JSON.stringify(body.system ?? '').includes('single valid JSON object');
}

function errorReply(format: WireFormat, message: string, param: string | null = null, code: string | null = null): FakeReply {
  if (format === 'messages') return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message } } };
  return { status: 400, json: { error: { message, type: 'invalid_request_error', param, code } } };
}

/** The checks and script of a strict fake, for a fake that serves them on its own routes (test/helpers/fake-azure.ts). */
export interface StrictHandler {
  /** Answers one request; `body` when the caller read it another way (e.g. the model from the path). */
  handle(request: ReceivedRequest, body?: Json): FakeReply;
  rejections: string[];
  cacheHits: number;
}

/** The strict fake's request handling without its server. */
export function createStrictHandler(options: StrictFakeOptions): StrictHandler {
  const rejections: string[] = [];
  const stored = new Map<string, Json>();
  const pairs = new Map<string, string>();
  const signatures = new Set<string>();
  /** The reasoning encrypted_content this fake issued (OpenAI decrypts only its own). */
  const encrypted = new Set<string>();
  const seenPrefixes = new Set<string>();
  const fake: StrictHandler = { handle: (request, body) => handle(request, body), rejections, cacheHits: 0 };
  const handle = (request: ReceivedRequest, given?: Json): FakeReply => {
    const body: Json = given ?? request.json ?? {};
    const format = options.format;
    const model = options.models[body.model];
    if (format === 'responses' && request.path.endsWith('/responses/compact') && model) return compactReply(body, rejections);
    if (format === 'messages' && request.path.endsWith('/messages/count_tokens') && model) return countTokensReply(body, rejections);
    if (!model) return { status: 404, json: format === 'messages' ? { type: 'error', error: { type: 'not_found_error', message: `model: ${body.model}` } } : { error: { message: `The model '${body.model}' does not exist`, type: 'invalid_request_error', code: 'model_not_found' } } };
    // A message thread (beta message-threads-2026-08-12) is not held here: answered as Anthropic answers a request it cannot thread.
    if (format === 'messages' && body.thread != null) return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'This request cannot be threaded.', details: { error_code: 'thread_unsupported_request', unsupported: ['thread'] } } } };
    try {
      if (format === 'chat') checkChat(body, model);
      else if (format === 'responses') checkResponses(body, model, stored, pairs, options.unverifiedOrganization === true, encrypted);
      else checkMessages(body, model, String(request.headers['anthropic-beta'] ?? ''), signatures);
    } catch (error) {
      if (!(error instanceof Rejection)) throw error;
      rejections.push(error.message);
      return errorReply(format, error.message, error.param, error.code);
    }
    const key = options.cacheKey?.(body);
    const cached = key !== undefined && seenPrefixes.has(key.lookup);
    if (key !== undefined) seenPrefixes.add(key.store);
    if (cached) fake.cacheHits += 1;
    const forced = forcedTool(format, body);
    const pick = forced && toolResults(format, body) === 0 ? { name: forced, input: { answer: 'done' } } : toolResults(format, body) >= (options.toolTurns ?? 1) ? undefined : options.pick?.(toolNames(format, body), body);
    const text = wantsJson(format, body) ? JSON.stringify({ answer: 'done' }) : (options.finalText ?? 'Done: the file is written.');
    const turn: Turn = { model: body.model, reasoning: model.reasoning && wantsReasoning(format, body), tool: pick, text, cachedTokens: cached ? 100 : 0, deltaSize: options.deltaSize };
    if (format === 'chat') return chatReply(turn, body);
    if (format === 'messages') {
      turn.signature = `sig_${crypto.randomBytes(12).toString('base64url')}`;
      signatures.add(turn.signature);
      return messagesReply(turn, body);
    }
    const reply = responsesReply(turn, body);
    if (body.store !== false) for (const item of reply.items) stored.set(String(item.id), item);
    for (const item of reply.items) if (item.type === 'reasoning' && typeof item.encrypted_content === 'string') encrypted.add(item.encrypted_content);
    reply.items.forEach((item, i) => {
      const after = reply.items[i + 1];
      if (item.type === 'reasoning' && after?.type === 'function_call') {
        pairs.set(String(item.id), String(after.id));
        pairs.set(String(after.id), String(item.id));
      }
    });
    return reply.reply;
  };
  return fake;
}

/** Starts a strict fake of `options.format` on 127.0.0.1. */
export async function startStrictFake(options: StrictFakeOptions): Promise<StrictFake> {
  const strict = createStrictHandler(options);
  return asStrictFake(await startFakeUpstream((request) => strict.handle(request)), strict);
}

/**
 * A strict Responses fake without OpenAI's compaction, as vLLM and other OpenAI-compatible
 * servers are: no `/responses/compact` route (FastAPI's 404 `{"detail":"Not Found"}`), and a
 * `compaction_trigger` input item fails its input validation (400).
 */
export async function startCompactionlessFake(options: Omit<StrictFakeOptions, 'format'>): Promise<StrictFake> {
  const strict = createStrictHandler({ ...options, format: 'responses' });
  const base = await startFakeUpstream((request) => {
    if (request.path.endsWith('/responses/compact')) return { status: 404, json: { detail: 'Not Found' } };
    if (request.body.includes('"compaction_trigger"')) {
      return { status: 400, json: { object: 'error', message: "1 validation error: input: Input tag 'compaction_trigger' found using 'type' does not match any of the expected tags", type: 'BadRequestError', param: null, code: 400 } };
    }
    return strict.handle(request);
  });
  return asStrictFake(base, strict);
}

function asStrictFake(base: FakeUpstream, strict: StrictHandler): StrictFake {
  return Object.defineProperties(base as StrictFake, { rejections: { value: strict.rejections }, cacheHits: { get: () => strict.cacheHits } });
}

function wantsReasoning(format: WireFormat, body: Json): boolean {
  if (format === 'chat') return body.reasoning_effort !== undefined;
  if (format === 'responses') return body.reasoning !== undefined;
  return body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
}

/** What Anthropic's `POST /v1/messages/count_tokens` takes (no `max_tokens`, no `stream`: "Extra inputs are not permitted"). */
const COUNT_TOKENS_KEYS = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers', 'context_management', 'output_config']);

/** Anthropic's `POST /v1/messages/count_tokens`: `{ input_tokens }`, about 4 characters a token. */
function countTokensReply(body: Json, rejections: string[]): FakeReply {
  try {
    checkKeys(body, COUNT_TOKENS_KEYS, (key) => `${key}: Extra inputs are not permitted`);
  } catch (error) {
    if (!(error instanceof Rejection)) throw error;
    rejections.push(error.message);
    return errorReply('messages', error.message);
  }
  return { json: { input_tokens: Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4)) } };
}

/**
 * OpenAI's `POST /v1/responses/compact`: every user message of the input, then one opaque
 * `compaction` item (the shape of the API reference's example and the openai SDK's CompactedResponse).
 */
function compactReply(body: Json, rejections: string[]): FakeReply {
  try {
    checkKeys(body, COMPACT_KEYS, (key) => `Unknown parameter: '${key}'.`);
  } catch (error) {
    if (!(error instanceof Rejection)) throw error;
    rejections.push(error.message);
    return errorReply('responses', error.message);
  }
  const input: Json[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? []);
  const users = input
    .filter((item) => item.role === 'user' && (item.type === undefined || item.type === 'message'))
    .map((item, index) => ({ id: `msg_keep${index}`, type: 'message', status: 'completed', role: 'user', content: typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content }));
  return {
    json: {
      id: 'resp_compact1',
      object: 'response.compaction',
      created_at: 1_700_000_000,
      output: [...users, { id: 'cmp_upstream1', type: 'compaction', encrypted_content: UPSTREAM_COMPACTION }],
      usage: { input_tokens: 139, input_tokens_details: { cached_tokens: 0 }, output_tokens: 438, output_tokens_details: { reasoning_tokens: 64 }, total_tokens: 577 },
    },
  };
}
