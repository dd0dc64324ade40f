// A Converse request body (the `bedrock-converse` inbound routes) → IR. Checks only what the
// IR needs; a passthrough sends the client's bytes and Bedrock judges the rest.
import { GatewayError, type ChatRequest, type Message, type RouteTarget, type ToolChoice, type ToolDefinition } from 'gateway/plugin-kit';
import { decodeConverseContent } from './map-content.ts';
import { isRecord, numberOf, recordOf, stringOf, type Json } from './json.ts';

function invalid(field: string, message: string): never {
  throw new GatewayError('validation_error', `${field}: ${message}`, { details: { fields: { [field]: message } } });
}

function decodeTools(config: Json): { tools?: ToolDefinition[]; toolChoice?: ToolChoice } {
  const tools: ToolDefinition[] = [];
  for (const raw of Array.isArray(config.tools) ? config.tools : []) {
    const entry = recordOf(raw);
    if (isRecord(entry.cachePoint)) {
      const last = tools[tools.length - 1];
      if (last) last.cacheControl = { type: 'ephemeral' };
      continue;
    }
    const spec = recordOf(entry.toolSpec);
    const name = stringOf(spec.name);
    if (!name) invalid('toolConfig.tools', 'each tool needs toolSpec.name');
    const schema = recordOf(spec.inputSchema).json;
    tools.push({ name, ...(stringOf(spec.description) ? { description: spec.description as string } : {}), ...(isRecord(schema) ? { parameters: schema } : {}) });
  }
  const choice = recordOf(config.toolChoice);
  let toolChoice: ToolChoice | undefined;
  if (isRecord(choice.auto)) toolChoice = 'auto';
  else if (isRecord(choice.any)) toolChoice = 'required';
  else if (isRecord(choice.tool)) toolChoice = { type: 'tool', name: stringOf(choice.tool.name) ?? '' };
  return { ...(tools.length ? { tools } : {}), ...(toolChoice ? { toolChoice } : {}) };
}

export function decodeConverseRequest(body: unknown, target?: RouteTarget): ChatRequest {
  if (!target) throw new GatewayError('bad_request', 'Bedrock Converse reads the model from the path: /model/{modelId}/converse.');
  if (!isRecord(body)) throw new GatewayError('bad_request', 'The request body must be a JSON object.');
  if (!Array.isArray(body.messages)) invalid('messages', 'required, a list of messages');
  const request: ChatRequest = { model: target.model, stream: target.stream, system: [], messages: [] };
  request.messages = body.messages.map((raw, i): Message => {
    const message = recordOf(raw);
    if (message.role !== 'user' && message.role !== 'assistant') invalid(`messages[${i}].role`, "must be 'user' or 'assistant'");
    return { role: message.role, content: decodeConverseContent(message.content, `messages[${i}].content`) };
  });
  if (body.system !== undefined) {
    request.system = decodeConverseContent(body.system, 'system').filter((p) => p.type === 'text');
  }
  const inference = recordOf(body.inferenceConfig);
  const maxTokens = numberOf(inference.maxTokens);
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const temperature = numberOf(inference.temperature);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = numberOf(inference.topP);
  if (topP !== undefined) request.topP = topP;
  if (Array.isArray(inference.stopSequences)) request.stop = inference.stopSequences.filter((s): s is string => typeof s === 'string');
  if (isRecord(body.toolConfig)) Object.assign(request, decodeTools(body.toolConfig));
  const additional = recordOf(body.additionalModelRequestFields);
  const thinking = recordOf(additional.thinking);
  if (thinking.type === 'enabled') request.reasoning = { enabled: true, ...(numberOf(thinking.budget_tokens) ? { budgetTokens: thinking.budget_tokens as number } : {}) };
  const topK = numberOf(additional.top_k);
  if (topK !== undefined) request.topK = topK;
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !['messages', 'system', 'inferenceConfig', 'toolConfig'].includes(key)));
  if (Object.keys(rest).length) request.extra = rest;
  return request;
}
