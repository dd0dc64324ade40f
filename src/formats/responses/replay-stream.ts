import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { isRecord } from '../shared/index.ts';

type Json = Record<string, unknown>;

/** The empty part a `content_part.added` opens, for a finished part. */
function openPart(part: Json): Json {
  if (part.type === 'refusal') return { type: 'refusal', refusal: '' };
  return { ...part, text: '', annotations: [], ...(part.logprobs !== undefined ? { logprobs: [] } : {}) };
}

/** A message item's events after `output_item.added`, before `output_item.done`. */
function messageEvents(item: Json, outputIndex: number, emit: (type: string, payload: Json) => void): void {
  const parts = Array.isArray(item.content) ? item.content.filter(isRecord) : [];
  parts.forEach((part, contentIndex) => {
    const at = { item_id: item.id, output_index: outputIndex, content_index: contentIndex };
    emit('response.content_part.added', { ...at, part: openPart(part) });
    if (part.type === 'refusal') {
      emit('response.refusal.delta', { ...at, delta: part.refusal ?? '' });
      emit('response.refusal.done', { ...at, refusal: part.refusal ?? '' });
    } else if (part.type === 'output_text') {
      emit('response.output_text.delta', { ...at, delta: part.text ?? '', logprobs: [] });
      emit('response.output_text.done', { ...at, text: part.text ?? '', logprobs: [] });
    }
    emit('response.content_part.done', { ...at, part });
  });
}

/** A reasoning item's summary events. */
function reasoningEvents(item: Json, outputIndex: number, emit: (type: string, payload: Json) => void): void {
  const summary = Array.isArray(item.summary) ? item.summary.filter(isRecord) : [];
  summary.forEach((part, summaryIndex) => {
    const at = { item_id: item.id, output_index: outputIndex, summary_index: summaryIndex };
    const text = typeof part.text === 'string' ? part.text : '';
    emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    emit('response.reasoning_summary_text.delta', { ...at, delta: text });
    emit('response.reasoning_summary_text.done', { ...at, text });
    emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
  });
}

/** An item as `output_item.added` shows it: in progress, before its content. */
function openItem(item: Json): Json {
  if (item.type === 'message') return { ...item, status: 'in_progress', content: [] };
  if (item.type === 'function_call') return { ...item, status: 'in_progress', arguments: '' };
  if (item.type === 'custom_tool_call') return { ...item, status: 'in_progress', input: '' };
  if (item.type === 'reasoning') {
    const { encrypted_content: _hidden, ...rest } = item;
    return { ...rest, summary: [] };
  }
  return item;
}

/**
 * A stored (finished) Responses object as the stream that made it would have sent it, for
 * `GET /v1/responses/{id}?stream=true` (the openai SDK's `responses.stream({ response_id })`):
 * `response.created`, `response.in_progress`, each output item's events in the real API's
 * order, then `response.completed` (`.incomplete`, `.failed`) with the whole object. Numbered
 * from 0; only the events after `startingAfter` are returned.
 */
export function replayResponseStream(response: Json, startingAfter = -1): SseRecord[] {
  const out: SseRecord[] = [];
  let sequence = 0;
  const emit = (type: string, payload: Json) => {
    const sequenceNumber = sequence++;
    if (sequenceNumber > startingAfter) out.push(jsonRecord(type, { type, sequence_number: sequenceNumber, ...payload }));
  };
  const opening = { ...response, status: 'in_progress', output: [], usage: null, error: null, incomplete_details: null };
  emit('response.created', { response: opening });
  emit('response.in_progress', { response: opening });
  const output = Array.isArray(response.output) ? response.output.filter(isRecord) : [];
  output.forEach((item, outputIndex) => {
    emit('response.output_item.added', { output_index: outputIndex, item: openItem(item) });
    if (item.type === 'message') messageEvents(item, outputIndex, emit);
    else if (item.type === 'reasoning') reasoningEvents(item, outputIndex, emit);
    else if (item.type === 'function_call') {
      const args = typeof item.arguments === 'string' ? item.arguments : '';
      emit('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: args });
      emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, name: item.name, arguments: args });
    } else if (item.type === 'custom_tool_call') {
      const input = typeof item.input === 'string' ? item.input : '';
      if (input.length > 0) emit('response.custom_tool_call_input.delta', { item_id: item.id, output_index: outputIndex, delta: input });
      emit('response.custom_tool_call_input.done', { item_id: item.id, output_index: outputIndex, input });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  });
  const status = response.status === 'incomplete' || response.status === 'failed' ? response.status : 'completed';
  emit(`response.${status}`, { response });
  return out;
}
