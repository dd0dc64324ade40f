/**
 * Reads what a client got (a JSON body, or an SSE stream accumulated the way that format's
 * SDK does) into one view, and checks the stream's framing rules on the way (event order,
 * block indices, sequence numbers). Written from the wire reference, independently of the
 * codecs under test. `echo` is the assistant turn as that client sends it back next turn.
 */
import { expect } from 'vitest';
import type { MatrixFormat as WireFormat } from './client-requests.ts';

import { parseEvents } from '../stream-helpers.ts';

type Json = Record<string, any>;

export interface ClientView {
  id: string;
  text: string;
  toolCalls: Array<{ id: string; name: string; args: unknown }>;
  /** Thinking as the client sees it; `opaque` is the signature / encrypted content it must send back. */
  reasoning: Array<{ text: string; opaque?: string }>;
  /** Normalised: stop | length | tool_calls | content_filter. */
  finish: string;
  /** The format's own usage object (undefined when none was sent). */
  usage: Json | undefined;
  /** The assistant turn in this format's request shape (a message, or Responses items). */
  echo: Json | Json[];
}

const MESSAGES_FINISH: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool_calls', refusal: 'content_filter', pause_turn: 'stop' };

/** Clients JSON.parse arguments: every format must give them valid JSON, `{}` for no arguments. */
function parseArgs(args: string): unknown {
  return JSON.parse(args);
}

// ---------------------------------------------------------------- chat

function chatReasoning(details: Json[]): ClientView['reasoning'] {
  const out: Array<{ text: string; opaque?: string; id?: string }> = [];
  for (const d of details) {
    const last = out.at(-1);
    if (d.type === 'reasoning.text' || d.type === 'reasoning.summary') {
      out.push({ text: (d.type === 'reasoning.text' ? d.text : d.summary) ?? '', ...(d.signature ? { opaque: d.signature } : {}), id: d.id });
    } else if (d.type === 'reasoning.encrypted') {
      // An OpenAI reasoning item arrives as text/summary + encrypted detail with the same id.
      if (last && last.id !== undefined && last.id === d.id && last.opaque === undefined) last.opaque = d.data;
      else out.push({ text: '', opaque: d.data, id: d.id });
    }
  }
  return out.map(({ id: _id, ...entry }) => entry);
}

function chatView(message: Json, id: string, finish: string, usage: Json | undefined): ClientView {
  const calls = (message.tool_calls ?? []) as Json[];
  const details = (message.reasoning_details ?? []) as Json[];
  const echo: Json = { role: 'assistant', content: message.content ?? null };
  if (details.length > 0) echo.reasoning_details = details;
  if (calls.length > 0) echo.tool_calls = calls;
  return {
    id,
    text: message.content ?? '',
    toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, args: parseArgs(c.function.arguments) })),
    reasoning: details.length > 0 ? chatReasoning(details) : message.reasoning_content ? [{ text: message.reasoning_content }] : [],
    finish,
    usage,
    echo,
  };
}

function readChatJson(body: Json): ClientView {
  expect(body.object).toBe('chat.completion');
  const choice = body.choices[0];
  return chatView(choice.message, body.id, choice.finish_reason, body.usage);
}

/** Accumulates a Chat stream: content, tool calls per index, reasoning_details merged per index. */
function readChatStream(sse: string): ClientView {
  const events = parseEvents(sse);
  expect(events.at(-1)?.data).toBe('[DONE]');
  const chunks = events.slice(0, -1).map((e) => e.data as Json);
  expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id)).toBe(true);
  expect(chunks[0].choices[0].delta.role).toBe('assistant');
  let text = '';
  let reasoningContent = '';
  let finish: string | undefined;
  let usage: Json | undefined;
  const calls: Json[] = [];
  const details = new Map<number, Json>();
  for (const chunk of chunks) {
    if (chunk.choices.length === 0) {
      expect(finish, 'the usage chunk comes after the finish chunk').toBeDefined();
      usage = chunk.usage;
      continue;
    }
    const { delta, finish_reason: reason } = chunk.choices[0];
    if (reason) finish = reason;
    text += delta.content ?? '';
    reasoningContent += delta.reasoning_content ?? '';
    for (const d of (delta.reasoning_details ?? []) as Json[]) {
      const known = details.get(d.index);
      if (!known) details.set(d.index, { ...d });
      else {
        if (d.text) known.text = (known.text ?? '') + d.text;
        if (d.summary) known.summary = (known.summary ?? '') + d.summary;
        if (d.signature) known.signature = d.signature;
        if (d.data) known.data = d.data;
      }
    }
    for (const call of (delta.tool_calls ?? []) as Json[]) {
      if (call.id) {
        expect(call.index, 'tool call indices count from 0').toBe(calls.length);
        expect(call.type).toBe('function');
        calls.push({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments ?? '' } });
      } else calls[call.index].function.arguments += call.function?.arguments ?? '';
    }
  }
  expect(finish, 'a finish chunk').toBeDefined();
  const message: Json = { role: 'assistant', content: text || null, reasoning_content: reasoningContent || undefined };
  if (details.size > 0) message.reasoning_details = [...details.entries()].sort(([a], [b]) => a - b).map(([, d]) => d);
  if (calls.length > 0) message.tool_calls = calls;
  return chatView(message, chunks[0].id, finish!, usage);
}

// ---------------------------------------------------------------- messages

function messagesView(message: Json): ClientView {
  const content = message.content as Json[];
  return {
    id: message.id,
    text: content.filter((b) => b.type === 'text').map((b) => b.text).join(''),
    toolCalls: content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, args: b.input })),
    reasoning: content.filter((b) => b.type === 'thinking').map((b) => ({ text: b.thinking, ...(b.signature ? { opaque: b.signature } : {}) })),
    finish: MESSAGES_FINISH[message.stop_reason] ?? message.stop_reason,
    usage: message.usage,
    echo: { role: 'assistant', content },
  };
}

/** Accumulates a Messages stream as MessageStream does, checking event order and block indices. */
function readMessagesStream(sse: string): ClientView {
  const events = parseEvents(sse).filter((e) => e.data.type !== 'ping');
  for (const e of events) expect(e.event).toBe(e.data.type);
  expect(events[0].event).toBe('message_start');
  expect(events.at(-1)?.event).toBe('message_stop');
  const message: Json = structuredClone(events[0].data.message);
  const json = new Map<number, string>();
  let open: number | undefined;
  for (const { data } of events.slice(1, -1)) {
    if (data.type === 'content_block_start') {
      expect(open, 'one block open at a time').toBeUndefined();
      expect(data.index, 'block indices are sequential from 0').toBe(message.content.length);
      open = data.index;
      message.content.push(structuredClone(data.content_block));
    } else if (data.type === 'content_block_delta') {
      expect(data.index).toBe(open);
      const block = message.content[data.index];
      const d = data.delta;
      if (d.type === 'text_delta') block.text += d.text;
      else if (d.type === 'thinking_delta') block.thinking += d.thinking;
      else if (d.type === 'signature_delta') block.signature = d.signature;
      else if (d.type === 'input_json_delta') json.set(data.index, (json.get(data.index) ?? '') + d.partial_json);
    } else if (data.type === 'content_block_stop') {
      expect(data.index).toBe(open);
      const block = message.content[data.index];
      if (block.type === 'tool_use' && json.has(data.index)) block.input = JSON.parse(json.get(data.index)!);
      open = undefined;
    } else if (data.type === 'message_delta') {
      expect(open, 'blocks are closed before message_delta').toBeUndefined();
      message.stop_reason = data.delta.stop_reason;
      message.stop_sequence = data.delta.stop_sequence;
      message.usage = { ...message.usage, ...data.usage };
    } else throw new Error(`unexpected Messages event ${data.type}`);
  }
  return messagesView(message);
}

// ---------------------------------------------------------------- responses

function responsesView(response: Json): ClientView {
  const output = response.output as Json[];
  const messages = output.filter((i) => i.type === 'message');
  const finish =
    response.status === 'incomplete'
      ? response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length'
      : output.some((i) => i.type === 'function_call') ? 'tool_calls' : 'stop';
  expect(response.id).toMatch(/^resp_/);
  return {
    id: response.id,
    text: messages.flatMap((m) => m.content as Json[]).filter((p) => p.type === 'output_text').map((p) => p.text).join(''),
    toolCalls: output.filter((i) => i.type === 'function_call').map((i) => ({ id: i.call_id, name: i.name, args: parseArgs(i.arguments) })),
    reasoning: output
      .filter((i) => i.type === 'reasoning')
      .map((i) => ({ text: (i.summary as Json[]).map((s) => s.text).join(''), ...(i.encrypted_content ? { opaque: i.encrypted_content } : {}) })),
    finish,
    usage: response.usage ?? undefined,
    echo: output,
  };
}

/** Checks sequence numbers and item bookkeeping, then reads the final response as the SDK does. */
function readResponsesStream(sse: string): ClientView {
  const events = parseEvents(sse);
  events.forEach((e, i) => {
    expect(e.event).toBe(e.data.type);
    expect(e.data.sequence_number).toBe(i);
  });
  expect(events[0].event).toBe('response.created');
  const last = events.at(-1)!;
  expect(['response.completed', 'response.incomplete']).toContain(last.event);
  const done = events.filter((e) => e.event === 'response.output_item.done').map((e) => e.data);
  const added = events.filter((e) => e.event === 'response.output_item.added').map((e) => e.data);
  expect(added.map((e) => e.output_index)).toEqual(added.map((_, i) => i));
  expect(done.map((e) => e.output_index)).toEqual(added.map((_, i) => i));
  expect(last.data.response.output).toEqual(done.map((e) => e.item));
  // Deltas add up to what the .done events and the final items say.
  for (const item of done.map((e) => e.item)) {
    const deltas = (type: string) => events.filter((e) => e.event === type && e.data.item_id === item.id).map((e) => e.data.delta).join('');
    if (item.type === 'message') expect(deltas('response.output_text.delta')).toBe(item.content.map((p: Json) => p.text ?? '').join(''));
    if (item.type === 'function_call') expect(deltas('response.function_call_arguments.delta')).toBe(item.arguments);
    if (item.type === 'reasoning') expect(deltas('response.reasoning_summary_text.delta')).toBe(item.summary.map((s: Json) => s.text).join(''));
  }
  return responsesView(last.data.response);
}

// ---------------------------------------------------------------- gemini

const GEMINI_FINISH: Record<string, string> = { STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'content_filter', RECITATION: 'content_filter', BLOCKLIST: 'content_filter', PROHIBITED_CONTENT: 'content_filter', SPII: 'content_filter' };

/** One candidate's parts → view. Gemini says STOP after calls too: a turn with calls reads as tool_calls. */
function geminiView(id: string, parts: Json[], reason: string, usage: Json | undefined): ClientView {
  const calls = parts.filter((p) => p.functionCall);
  return {
    id,
    text: parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text).join(''),
    toolCalls: calls.map((p) => ({ id: p.functionCall.id, name: p.functionCall.name, args: p.functionCall.args ?? {} })),
    reasoning: parts.filter((p) => p.thought).map((p) => ({ text: p.text, ...(p.thoughtSignature ? { opaque: p.thoughtSignature } : {}) })),
    finish: reason === 'STOP' && calls.length > 0 ? 'tool_calls' : (GEMINI_FINISH[reason] ?? reason),
    usage,
    echo: { role: 'model', parts },
  };
}

function readGeminiJson(body: Json): ClientView {
  expect(body.candidates).toHaveLength(1);
  const candidate = body.candidates[0];
  expect(candidate.content.role).toBe('model');
  return geminiView(body.responseId, candidate.content.parts, candidate.finishReason, body.usageMetadata);
}

/**
 * Accumulates a Gemini SSE stream (each record a whole GenerateContentResponse) as a client
 * that keeps the turn does: text parts of the same kind run together until one is signed (a
 * signature on an empty part belongs to the text before it); calls stay whole parts.
 */
function readGeminiStream(sse: string): ClientView {
  const records = parseEvents(sse).map((e) => e.data as Json);
  expect(records.length).toBeGreaterThan(0);
  for (const record of records) expect(record.responseId).toBe(records[0].responseId);
  const parts: Json[] = [];
  let reason: string | undefined;
  let usage: Json | undefined;
  records.forEach((record, i) => {
    const candidate = record.candidates?.[0];
    if (candidate?.finishReason) {
      expect(i, 'finishReason comes on the last record').toBe(records.length - 1);
      reason = candidate.finishReason;
    }
    if (record.usageMetadata) usage = record.usageMetadata;
    for (const part of (candidate?.content?.parts ?? []) as Json[]) {
      const last = parts.at(-1);
      const joins = typeof part.text === 'string' && last && typeof last.text === 'string' && !last.thoughtSignature && !!last.thought === !!part.thought;
      if (joins) {
        last.text += part.text;
        if (part.thoughtSignature) last.thoughtSignature = part.thoughtSignature;
      } else if (part.text === '' && !part.thoughtSignature) continue;
      else parts.push(structuredClone(part));
    }
  });
  expect(reason, 'a record with finishReason').toBeDefined();
  return geminiView(records[0].responseId, parts, reason!, usage);
}

/** A client's JSON body → view. */
export function readClientJson(format: WireFormat, body: Json): ClientView {
  if (format === 'chat') return readChatJson(body);
  if (format === 'gemini') return readGeminiJson(body);
  if (format === 'messages') {
    expect(body.type).toBe('message');
    return messagesView(body);
  }
  expect(body.object).toBe('response');
  return responsesView(body);
}

/** A client's SSE text → view (framing checked). */
export function readClientStream(format: WireFormat, sse: string): ClientView {
  if (format === 'chat') return readChatStream(sse);
  if (format === 'messages') return readMessagesStream(sse);
  if (format === 'gemini') return readGeminiStream(sse);
  return readResponsesStream(sse);
}
