/** The replies of the strict fakes (test/helpers/strict-fakes.ts), whole or streamed, in each wire format. */
import { FAKE_PNG_BASE64 } from './fake-gemini.ts';
import { chatSse, namedSse, type FakeReply } from './fake-upstream.ts';

type Json = Record<string, any>;

/** One scripted turn: a tool call or a final text, with reasoning when the model reasons and it was asked for. */
export interface Turn {
  model: string;
  reasoning: boolean;
  /** One tool call, or several in parallel. */
  tool: ToolCall | ToolCall[] | undefined;
  text: string;
  cachedTokens: number;
  /** The thinking signature of a Messages answer (the strict fake remembers the ones it issued). */
  signature?: string;
  /** Responses: a streamed text goes in deltas of this many characters (default: one delta). */
  deltaSize?: number;
}

interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

const callsOf = (turn: Turn): ToolCall[] => (turn.tool === undefined ? [] : Array.isArray(turn.tool) ? turn.tool : [turn.tool]);

let counter = 0;
const next = (prefix: string) => `${prefix}_${(++counter).toString(36).padStart(6, '0')}`;
const THOUGHT = 'Thinking about the task.';
/** A partial image OpenAI's image tool streams before the finished one (a draft: never the answer). */
export const DRAFT_PNG_BASE64 = 'ZHJhZnQ=';

export function chatReply(turn: Turn, body: Json): FakeReply {
  const id = next('chatcmpl');
  const calls = callsOf(turn).map((call) => ({ id: next('call'), name: call.name, args: JSON.stringify(call.input) }));
  const usage = { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140, prompt_tokens_details: { cached_tokens: turn.cachedTokens }, completion_tokens_details: { reasoning_tokens: turn.reasoning ? 5 : 0 } };
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message: Json = { role: 'assistant', content: calls.length > 0 ? null : turn.text, refusal: null };
    if (calls.length > 0) message.tool_calls = calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }));
    return { json: { id, object: 'chat.completion', created: 1_700_000_000, model: turn.model, choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage } };
  }
  const chunk = (delta: Json, finishReason: string | null = null) => ({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: turn.model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] });
  const chunks: Json[] = [chunk({ role: 'assistant', content: '' })];
  calls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.args } }] }));
  });
  if (calls.length === 0) chunks.push(chunk({ content: turn.text }));
  chunks.push(chunk({}, finish));
  if (body.stream_options?.include_usage) chunks.push({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: turn.model, choices: [], usage });
  return { sse: chatSse(chunks) };
}

export function messagesReply(turn: Turn, body: Json): FakeReply {
  const id = next('msg');
  const content: Json[] = [];
  if (turn.reasoning) content.push({ type: 'thinking', thinking: THOUGHT, signature: turn.signature ?? `sig_${next('s')}` });
  for (const call of callsOf(turn)) content.push({ type: 'tool_use', id: next('toolu'), name: call.name, input: call.input });
  if (turn.tool === undefined) content.push({ type: 'text', text: turn.text });
  const usage = { input_tokens: 120 - turn.cachedTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: turn.cachedTokens, output_tokens: 20 };
  const stopReason = turn.tool ? 'tool_use' : 'end_turn';
  const message = { id, type: 'message', role: 'assistant', model: turn.model, content, stop_reason: stopReason, stop_sequence: null, usage };
  return body.stream ? messagesStreamOf(message) : { json: message };
}

/** A whole Messages answer as its SSE stream: message_start, each block's start/deltas/stop, message_delta, message_stop. */
export function messagesStreamOf(message: Json): FakeReply {
  const { content, usage, stop_reason: stopReason } = message;
  const events: Array<{ type: string; [k: string]: unknown }> = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }];
  (content as Json[]).forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'tool_use') {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  // The usage is cumulative, input and cache counts included, as Anthropic's message_delta says it today.
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null, stop_details: null }, usage });
  events.push({ type: 'message_stop' });
  return { sse: namedSse(events) };
}

/** What OpenAI's image tool reports for one low-quality 1024x1024 image (`tool_usage.image_gen`). */
export const IMAGE_TOOL_USAGE = { input_tokens: 50, input_tokens_details: { image_tokens: 0, text_tokens: 50 }, output_tokens: 272, output_tokens_details: { image_tokens: 272, text_tokens: 0 }, total_tokens: 322 };

export function responsesReply(turn: Turn, body: Json): { reply: FakeReply; items: Json[] } {
  const id = next('resp');
  const items: Json[] = [];
  // OpenAI writes a summary of the reasoning only when `reasoning.summary` asks for one.
  const summary = body.reasoning?.summary != null ? [{ type: 'summary_text', text: THOUGHT }] : [];
  if (turn.reasoning) items.push({ id: next('rs'), type: 'reasoning', summary, encrypted_content: `enc_${next('e')}` });
  for (const tool of callsOf(turn)) {
    const dot = tool.name.indexOf('.');
    const call: Json = { id: next('fc'), type: 'function_call', status: 'completed', call_id: next('call'), name: dot === -1 ? tool.name : tool.name.slice(dot + 1), arguments: JSON.stringify(tool.input) };
    if (dot !== -1) call.namespace = tool.name.slice(0, dot);
    items.push(call);
  }
  // OpenAI's hosted image tool, when the request carries it: the image item before the text.
  const imageTool = (body.tools ?? []).find((tool: Json) => tool.type === 'image_generation');
  if (turn.tool === undefined && imageTool) items.push({ id: next('ig'), type: 'image_generation_call', status: 'completed', background: 'opaque', output_format: 'png', quality: 'low', size: '1024x1024', revised_prompt: 'A cat', result: FAKE_PNG_BASE64 });
  if (turn.tool === undefined) items.push({ id: next('msg'), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: turn.text, annotations: [], logprobs: [] }] });
  const usage = { input_tokens: 120, input_tokens_details: { cached_tokens: turn.cachedTokens }, output_tokens: 20, output_tokens_details: { reasoning_tokens: turn.reasoning ? 5 : 0 }, total_tokens: 140 };
  // OpenAI echoes the tools with their defaults, and bills the image tool's own tokens apart, in `tool_usage.image_gen`.
  const tools = (body.tools ?? []).map((tool: Json) => (tool.type === 'image_generation' ? { model: 'gpt-image-1', quality: 'auto', size: 'auto', ...tool } : tool));
  const response: Json = { id, object: 'response', created_at: 1_700_000_000, status: 'completed', model: turn.model, output: items, usage, error: null, incomplete_details: null, tools, parallel_tool_calls: true, tool_choice: 'auto' };
  if (items.some((item) => item.type === 'image_generation_call')) response.tool_usage = { image_gen: IMAGE_TOOL_USAGE };
  if (!body.stream) return { reply: { json: response }, items };
  let seq = 0;
  const events: Array<{ type: string; [k: string]: unknown }> = [];
  const emit = (type: string, data: Json) => events.push({ type, sequence_number: seq++, ...data });
  emit('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
  items.forEach((item, index) => {
    if (item.type === 'message') {
      emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      emit('response.content_part.added', { output_index: index, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      const size = turn.deltaSize ?? Math.max(turn.text.length, 1);
      for (let at = 0; at < turn.text.length; at += size) emit('response.output_text.delta', { output_index: index, item_id: item.id, content_index: 0, delta: turn.text.slice(at, at + size) });
      emit('response.output_text.done', { output_index: index, item_id: item.id, content_index: 0, text: turn.text });
      emit('response.content_part.done', { output_index: index, item_id: item.id, content_index: 0, part: item.content[0] });
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
      emit('response.function_call_arguments.delta', { output_index: index, item_id: item.id, delta: item.arguments });
      emit('response.function_call_arguments.done', { output_index: index, item_id: item.id, arguments: item.arguments });
    } else if (item.type === 'image_generation_call') {
      // As OpenAI streams it: no result until the item is done; a draft per partial image asked for.
      emit('response.output_item.added', { output_index: index, item: { id: item.id, type: item.type, status: 'in_progress' } });
      emit('response.image_generation_call.in_progress', { output_index: index, item_id: item.id });
      emit('response.image_generation_call.generating', { output_index: index, item_id: item.id });
      for (let n = 0; n < (imageTool.partial_images ?? 0); n++) emit('response.image_generation_call.partial_image', { output_index: index, item_id: item.id, partial_image_index: n, partial_image_b64: DRAFT_PNG_BASE64, output_format: 'png', background: 'opaque', size: '1024x1024', quality: 'low' });
      emit('response.image_generation_call.completed', { output_index: index, item_id: item.id });
    } else {
      emit('response.output_item.added', { output_index: index, item: { ...item, summary: [], encrypted_content: undefined } });
    }
    emit('response.output_item.done', { output_index: index, item });
  });
  emit('response.completed', { response });
  return { reply: { sse: namedSse(events) }, items };
}
