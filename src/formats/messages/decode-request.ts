import { decodeWebSearchServerTool, isWebSearchServerTool } from './map-web-search.ts';
import type { ChatRequest, Message, ReasoningConfig, ResponseFormat, TextPart, ToolChoice, ToolDefinition } from '../../ir/index.ts';
import { FieldChecker, assignDefined as set, collectExtra, isRecord, isReasoningEffort, requireBodyShape } from '../shared/index.ts';
import { decodeMessagesTurn, decodeTextBlock } from './decode-content.ts';
import { GatewayError } from '../../errors/index.ts';

/** Body fields mapped into the IR; everything else is kept in `extra`. */
const MAPPED = new Set([
  'model', 'messages', 'system', 'max_tokens', 'stream', 'temperature', 'top_p', 'top_k', 'stop_sequences',
  'tools', 'tool_choice', 'thinking', 'metadata', 'output_config',
]);

/**
 * A message thread (`thread`, beta message-threads-2026-08-12: the server holds the conversation
 * and a `continue` sends only the new messages, without `system` and `tools`) cannot be held on a
 * converted route: dropping `thread` sent the upstream a conversation without its history or its
 * tools. Refused as Anthropic refuses a request it cannot thread (`error.details.error_code:
 * thread_unsupported_request`), on which the SDK's thread (`unsupportedRequestBehavior:
 * 'continue_unthreaded'`, the default of `beta.messages.toolRunner`) sends the turn again with the
 * full history and threads no more. A Messages upstream gets `thread` as written (passthrough).
 */
function threadUnsupported(): GatewayError {
  return new GatewayError('bad_request', 'This model is served in another format, where the gateway cannot hold a message thread: send the full history without `thread`.', {
    details: { error_code: 'thread_unsupported_request', unsupported: ['thread'] },
  });
}

const ROLES: readonly string[] & readonly ('user' | 'assistant' | 'system')[] = ['user', 'assistant', 'system'];

/** An Anthropic Messages request body → IR. Throws 400 for a wrong shape, 422 for invalid values. */
export function decodeMessagesRequest(raw: unknown): ChatRequest {
  const body = requireBodyShape(raw, 'messages');
  if (body.thread !== undefined && body.thread !== null) throw threadUnsupported();
  const check = new FieldChecker();
  const messages: Message[] = [];
  const unconvertible: Array<{ field: string; message: string }> = [];
  const tools = decodeTools(body.tools, check);
  (body.messages as unknown[]).forEach((message, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(message)) return check.fail(at, 'must be an object');
    // A role the gateway does not know is the upstream's to judge: a passthrough forwards it as
    // written, a conversion refuses it (prepare-call) since it has no IR form.
    if (typeof message.role === 'string' && !ROLES.includes(message.role)) {
      return void unconvertible.push({ field: `${at}.role`, message: `role '${message.role}' has no equivalent in another format` });
    }
    // `system` inside `messages`: what Claude Code sends for models it does not know (beta mid-conversation-system-2026-04-07).
    const role = check.requiredOneOf(message.role, `${at}.role`, ROLES);
    if (role) messages.push(...decodeMessagesTurn(role, message.content, at, check, unconvertible, tools));
  });
  const request: ChatRequest = {
    model: body.model,
    system: decodeSystem(body.system, check),
    messages,
    stream: check.boolean(body.stream, 'stream') ?? false,
  };
  set(request, 'maxTokens', check.number(body.max_tokens, 'max_tokens', { min: 0, integer: true }));
  set(request, 'temperature', check.number(body.temperature, 'temperature', { min: 0, max: 1 }));
  set(request, 'topP', check.number(body.top_p, 'top_p', { min: 0, max: 1 }));
  set(request, 'topK', check.number(body.top_k, 'top_k', { min: 0, integer: true }));
  set(request, 'stop', check.array(body.stop_sequences, 'stop_sequences') && check.stringList(body.stop_sequences, 'stop_sequences'));
  set(request, 'tools', tools);
  const serverTools = anthropicTools(body.tools);
  const webSearch = serverTools.find(isWebSearchServerTool);
  if (webSearch) request.webSearch = decodeWebSearchServerTool(webSearch);
  decodeToolChoice(body.tool_choice, request, check);
  const outputConfig = check.record(body.output_config, 'output_config');
  set(request, 'reasoning', decodeThinking(body.thinking, outputConfig, check));
  set(request, 'responseFormat', decodeOutputFormat(outputConfig, check));
  const metadata = check.record(body.metadata, 'metadata');
  set(request, 'user', metadata && check.string(metadata.user_id, 'metadata.user_id'));
  // The MCP connector's servers go only to Claude (hosted-tools policy); not a list, they would be dropped unseen.
  check.array(body.mcp_servers, 'mcp_servers');
  const extra = collectExtra(body, MAPPED);
  // Server tools have no IR slot: kept raw, for a Messages upstream only (never dropped silently: src/pipeline/hosted-tools.ts).
  set(request, 'extra', serverTools.length > 0 ? { ...extra, serverTools } : extra);
  check.throwIfAny();
  if (unconvertible.length > 0) request.unconvertible = unconvertible;
  return request;
}

function decodeSystem(value: unknown, check: FieldChecker): TextPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  if (!Array.isArray(value)) {
    check.fail('system', 'must be a string or an array of text blocks');
    return [];
  }
  return value.flatMap((block, i) => {
    if (!isRecord(block) || block.type !== 'text') {
      check.fail(`system[${i}]`, 'must be a text block');
      return [];
    }
    return [decodeTextBlock(block, `system[${i}]`, check)];
  });
}

/** Anthropic-defined tools (a versioned `type`: web_search_…, code_execution_…, bash_…): they have no IR slot. */
function isAnthropicTool(tool: Record<string, unknown>): boolean {
  return tool.type !== undefined && tool.type !== null && tool.type !== 'custom';
}

export function anthropicTools(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((tool): tool is Record<string, unknown> => isRecord(tool) && isAnthropicTool(tool)) : [];
}

/** Client tools → IR; Anthropic-defined tools (versioned `type`) are kept raw in `extra.serverTools` instead. */
function decodeTools(value: unknown, check: FieldChecker): ToolDefinition[] | undefined {
  return check.array(value, 'tools')?.flatMap((tool, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) {
      check.fail(at, 'must be an object');
      return [];
    }
    if (isAnthropicTool(tool)) return [];
    const out: ToolDefinition = { name: check.requiredString(tool.name, `${at}.name`) };
    set(out, 'description', check.string(tool.description, `${at}.description`));
    set(out, 'parameters', check.record(tool.input_schema, `${at}.input_schema`));
    set(out, 'strict', check.boolean(tool.strict, `${at}.strict`));
    set(out, 'cacheControl', check.record(tool.cache_control, `${at}.cache_control`));
    return [out];
  });
}

function decodeToolChoice(value: unknown, request: ChatRequest, check: FieldChecker): void {
  const choice = check.record(value, 'tool_choice');
  if (!choice) return;
  const type = check.requiredOneOf(choice.type, 'tool_choice.type', ['auto', 'any', 'tool', 'none'] as const);
  let toolChoice: ToolChoice | undefined;
  if (type === 'any') toolChoice = 'required';
  else if (type === 'tool') toolChoice = { type: 'tool', name: check.requiredString(choice.name, 'tool_choice.name') };
  else toolChoice = type;
  set(request, 'toolChoice', toolChoice);
  if (check.boolean(choice.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use') === true) request.parallelToolCalls = false;
}

function decodeThinking(value: unknown, outputConfig: Record<string, unknown> | undefined, check: FieldChecker): ReasoningConfig | undefined {
  const thinking = check.record(value, 'thinking');
  const effort = outputConfig?.effort;
  if (effort !== undefined && !isReasoningEffort(effort)) check.fail('output_config.effort', 'must be one of low, medium, high, xhigh, max');
  if (!thinking) return isReasoningEffort(effort) ? { enabled: effort !== 'none', effort } : undefined;
  const type = check.requiredOneOf(thinking.type, 'thinking.type', ['enabled', 'disabled', 'adaptive'] as const);
  const config: ReasoningConfig = { enabled: type === 'enabled' || type === 'adaptive' };
  set(config, 'budgetTokens', check.number(thinking.budget_tokens, 'thinking.budget_tokens', { min: 0, integer: true }));
  if (type === 'enabled' && config.budgetTokens === undefined) check.fail('thinking.budget_tokens', 'is required');
  if (isReasoningEffort(effort)) config.effort = effort;
  // Thinking is shown unless the client said `display: "omitted"`; an OpenAI upstream gives its text only as a summary asked for.
  if (config.enabled && thinking.display !== 'omitted') config.summary = 'auto';
  return config;
}

function decodeOutputFormat(outputConfig: Record<string, unknown> | undefined, check: FieldChecker): ResponseFormat | undefined {
  const format = outputConfig && check.record(outputConfig.format, 'output_config.format');
  if (!format || format.type !== 'json_schema') return undefined;
  // Anthropic constrains the answer to the schema: strict, where the upstream can be (openAIStrict).
  const out: ResponseFormat = { type: 'json_schema', strict: true };
  set(out, 'schema', check.record(format.schema, 'output_config.format.schema'));
  return out;
}
