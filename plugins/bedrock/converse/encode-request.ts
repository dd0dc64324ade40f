// IR → a Converse request body (`POST /model/{modelId}/converse[-stream]`; the model and the
// stream flag are in the path, never in the body).
import { continuesToolLoopWithoutThinking, type ChatRequest, type ContentPart, type EncodeRequestOptions, type Message, type ToolChoice } from 'gateway/plugin-kit';
import { encodeConversePart } from './map-content.ts';
import type { Json } from './json.ts';
import { isClaude } from '../models.ts';

type Turn = { role: 'user' | 'assistant'; content: Json[] };

/** Reasoning Claude can verify: its own signed text or redacted bytes. */
const signedReasoning = (part: ContentPart) => part.type !== 'reasoning' || part.redacted === true || Boolean(part.signature);

/**
 * Claude on Converse checks every reasoningText signature it is sent (one it did not issue, or
 * none, is a ValidationException), so reasoning without one (another model's, or a client's that
 * kept the text only) is left out, as on Messages. Other models get their reasoning text back.
 */
function verifiable(messages: readonly Message[], claude: boolean): readonly Message[] {
  if (!claude || !messages.some((m) => m.role === 'assistant' && !m.content.every(signedReasoning))) return messages;
  return messages.map((m) => (m.role === 'assistant' ? { ...m, content: m.content.filter(signedReasoning) } : m));
}

/** Converse has two roles and wants them to alternate: tool results are user turns, neighbours merge. */
function encodeMessages(messages: readonly Message[]): { system: ContentPart[]; turns: Turn[] } {
  const system: ContentPart[] = [];
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      system.push(...message.content.filter((p) => p.type === 'text'));
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = message.content.flatMap(encodeConversePart);
    if (content.length === 0) continue;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  }
  return { system, turns };
}

function encodeToolChoice(choice: ToolChoice | undefined): Json | undefined {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.name } };
}

function encodeToolConfig(request: ChatRequest): Json | undefined {
  if (!request.tools?.length) return undefined;
  const tools: Json[] = [];
  for (const tool of request.tools) {
    tools.push({ toolSpec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { json: tool.parameters ?? { type: 'object', properties: {} } } } });
    if (tool.cacheControl) tools.push({ cachePoint: { type: 'default' } });
  }
  const toolChoice = encodeToolChoice(request.toolChoice);
  return { tools, ...(toolChoice ? { toolChoice } : {}) };
}

/**
 * Claude on Converse takes Anthropic's `thinking` in `additionalModelRequestFields`; other models'
 * reasoning switches differ. A tool loop whose last call turn does not start with signed reasoning
 * (a client that did not send it back) goes without thinking, as on Messages: Anthropic refuses it
 * otherwise ("a final assistant message must start with a thinking block").
 */
function encodeReasoning(request: ChatRequest, messages: readonly Message[], model: string): Json | undefined {
  const reasoning = request.reasoning;
  if (!reasoning?.enabled || !isClaude(model) || continuesToolLoopWithoutThinking(messages)) return undefined;
  const budget = reasoning.budgetTokens ?? Math.max(1024, Math.min(16_000, Math.floor((request.maxTokens ?? 4096) / 2)));
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}

export function encodeConverseRequest(request: ChatRequest, options: EncodeRequestOptions): Record<string, unknown> {
  const messages = verifiable(request.messages, isClaude(options.upstreamModel));
  const { system, turns } = encodeMessages(messages);
  const body: Json = { messages: turns };
  const systemBlocks = [...request.system, ...system].flatMap(encodeConversePart);
  if (systemBlocks.length) body.system = systemBlocks;
  const inference: Json = {};
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  if (request.temperature !== undefined) inference.temperature = request.temperature;
  if (request.topP !== undefined) inference.topP = request.topP;
  if (request.stop?.length) inference.stopSequences = request.stop;
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  const toolConfig = encodeToolConfig(request);
  if (toolConfig) body.toolConfig = toolConfig;
  const extra: Json = { ...encodeReasoning(request, messages, options.upstreamModel) };
  if (request.topK !== undefined && isClaude(options.upstreamModel)) extra.top_k = request.topK;
  if (Object.keys(extra).length) body.additionalModelRequestFields = extra;
  return body;
}
