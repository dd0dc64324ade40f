/**
 * Claude on the Vertex fake (`publishers/anthropic/models/{m}:rawPredict|streamRawPredict`):
 * a Messages body with `anthropic_version: "vertex-2023-10-16"` and no `model`, checked as the
 * strict Messages fake checks it, plus: every thinking signature in the history must be one this
 * fake issued, byte for byte, and every tool_use must be answered. Script: a round of (parallel)
 * tool calls until `toolTurns` rounds are answered, then a final text; thinking when asked.
 */
import crypto from 'node:crypto';
import type { FakeReply } from './fake-upstream.ts';
import { messagesStreamOf } from './strict-fake-replies.ts';

type Json = Record<string, any>;

export interface ClaudeModel {
  maxOutput: number;
  reasoning: boolean;
}

export interface ClaudeFakeOptions {
  models: Record<string, ClaudeModel>;
  /** The tool calls of a round from the offered tool names (several = parallel). */
  pick?: (names: string[], body: Json) => Array<{ name: string; input: Record<string, unknown> }> | undefined;
  toolTurns?: number;
  finalText?: string;
  /** Reported as `cache_read_input_tokens` (the rest of 120 as `input_tokens`). */
  cachedTokens?: number;
}

const KEYS = new Set([
  'anthropic_version', 'messages', 'system', 'max_tokens', 'stream', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'tools', 'tool_choice',
  'thinking', 'metadata', 'output_config', 'context_management', 'service_tier',
]);
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

class Rejection extends Error {}
const reject = (message: string): never => {
  throw new Rejection(message);
};

/** Vertex relays Anthropic's own error body for a bad Messages request. */
function anthropicError(status: number, type: string, message: string): FakeReply {
  return { status, json: { type: 'error', error: { type, message } } };
}

function check(body: Json, model: ClaudeModel, stream: boolean, issued: Set<string>): void {
  if (body.model !== undefined) reject('model: Extra inputs are not permitted');
  if (body.anthropic_version !== VERTEX_ANTHROPIC_VERSION) reject(`anthropic_version: Input should be '${VERTEX_ANTHROPIC_VERSION}'`);
  for (const key of Object.keys(body)) if (!KEYS.has(key)) reject(`${key}: Extra inputs are not permitted`);
  if ((body.stream === true) !== stream) reject(stream ? 'streamRawPredict needs "stream": true' : 'rawPredict cannot stream: use streamRawPredict');
  if (typeof body.max_tokens !== 'number') reject('max_tokens: Field required');
  if (body.max_tokens > model.maxOutput) reject(`max_tokens: ${body.max_tokens} > ${model.maxOutput}, which is the maximum allowed number of output tokens`);
  const thinking = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
  if (thinking && !model.reasoning) reject('thinking: this model does not support extended thinking');
  const messages: Json[] = body.messages ?? [];
  messages.forEach((message, i) => {
    if (!['user', 'assistant'].includes(message.role)) reject(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const blocks: Json[] = Array.isArray(message.content) ? message.content : [];
    blocks.forEach((block, j) => {
      if (block.type === 'thinking' && !issued.has(block.signature)) reject(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
    });
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
    if (message.role !== 'assistant' || uses.length === 0) return;
    const next = messages[i + 1];
    const answered = new Set((Array.isArray(next?.content) ? next.content : []).filter((b: Json) => b.type === 'tool_result').map((b: Json) => b.tool_use_id));
    if (next && uses.some((id) => !answered.has(id))) reject(`messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${uses.filter((id) => !answered.has(id)).join(', ')}`);
    const last = messages.slice(i + 1).every((m) => m.role !== 'assistant');
    if (thinking && last && blocks[0]?.type !== 'thinking' && blocks[0]?.type !== 'redacted_thinking') reject(`messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`);
  });
}

let counter = 0;
const next = (prefix: string) => `${prefix}_vtx${(++counter).toString(36).padStart(5, '0')}`;

function roundsDone(messages: Json[]): number {
  let start = messages.length - 1;
  while (start > 0 && !(messages[start].role === 'user' && (typeof messages[start].content === 'string' || messages[start].content.some((b: Json) => b.type !== 'tool_result')))) start -= 1;
  return messages.slice(start).filter((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b: Json) => b.type === 'tool_use')).length;
}

function replyOf(body: Json, modelId: string, model: ClaudeModel, options: ClaudeFakeOptions, issued: Set<string>): FakeReply {
  const content: Json[] = [];
  if (model.reasoning && (body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive')) {
    const signature = crypto.randomBytes(64).toString('base64');
    issued.add(signature);
    content.push({ type: 'thinking', thinking: 'Thinking about the task.', signature });
  }
  const names = (body.tools ?? []).filter((t: Json) => t.type === undefined || t.type === 'custom').map((t: Json) => t.name);
  const calls = roundsDone(body.messages ?? []) < (options.toolTurns ?? 1) ? options.pick?.(names, body) : undefined;
  if (calls?.length) for (const call of calls) content.push({ type: 'tool_use', id: next('toolu'), name: call.name, input: call.input });
  else content.push({ type: 'text', text: options.finalText ?? 'Done: the file is written.' });
  const cached = options.cachedTokens ?? 0;
  const usage = { input_tokens: 120 - cached, cache_creation_input_tokens: 0, cache_read_input_tokens: cached, output_tokens: 20 };
  const stop = calls?.length ? 'tool_use' : 'end_turn';
  const message = { id: next('msg'), type: 'message', role: 'assistant', model: modelId, content, stop_reason: stop, stop_sequence: null, usage };
  return body.stream === true ? messagesStreamOf(message) : { json: message };
}

export interface ClaudeHandler {
  /** A rawPredict / streamRawPredict call; `stream` is the method's. */
  predict(body: Json | undefined, modelId: string, stream: boolean): FakeReply;
  /** `count-tokens:rawPredict` (the body keeps `model`). */
  count(body: Json | undefined): FakeReply;
  rejections: string[];
  issued: Set<string>;
}

/** Claude's handling in the Vertex fake. */
export function createClaudeHandler(options: ClaudeFakeOptions): ClaudeHandler {
  const rejections: string[] = [];
  const issued = new Set<string>();
  const refuse = (error: unknown): FakeReply => {
    if (!(error instanceof Rejection)) throw error;
    rejections.push(error.message);
    return anthropicError(400, 'invalid_request_error', error.message);
  };
  return {
    rejections,
    issued,
    predict(body, modelId, stream) {
      const model = options.models[modelId];
      if (!model) return { status: 404, json: { error: { code: 404, message: `Publisher Model \`publishers/anthropic/models/${modelId}\` not found.`, status: 'NOT_FOUND' } } };
      try {
        check(body ?? reject('invalid JSON'), model, stream, issued);
        return replyOf(body!, modelId, model, options, issued);
      } catch (error) {
        return refuse(error);
      }
    },
    count(body) {
      try {
        if (!body || typeof body.model !== 'string' || !options.models[body.model]) reject('model: Field required');
        if (body!.anthropic_version !== VERTEX_ANTHROPIC_VERSION) reject(`anthropic_version: Input should be '${VERTEX_ANTHROPIC_VERSION}'`);
        return { json: { input_tokens: 3 + Math.ceil(JSON.stringify(body!.messages ?? []).length / 4) } };
      } catch (error) {
        return refuse(error);
      }
    },
  };
}
