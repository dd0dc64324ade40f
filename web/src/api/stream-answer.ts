import { errorOf } from './call-procedure.ts';
import { readSse } from './read-sse.ts';

export type ChatFormat = 'chat' | 'responses' | 'messages';

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

export interface AnswerUsage {
  input: number;
  output: number;
}

export interface StreamedAnswer {
  requestId: string | null;
  /** `X-Routing-*` and `X-Fallback-*` headers of the answer. */
  routing: Array<[string, string]>;
  usage: AnswerUsage | undefined;
}

const PATHS: Record<ChatFormat, string> = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' };

/** The request body of each format for the same conversation, streamed. */
function bodyOf(format: ChatFormat, model: string, turns: Turn[]): unknown {
  if (format === 'chat') return { model, stream: true, stream_options: { include_usage: true }, messages: turns };
  if (format === 'responses') return { model, stream: true, input: turns.map((t) => ({ role: t.role, content: t.content })) };
  return { model, stream: true, max_tokens: 1024, messages: turns };
}

/** Text and usage out of one event of each format's stream. */
function readEvent(format: ChatFormat, event: string, data: Record<string, unknown>, usage: AnswerUsage): string {
  if (format === 'chat') {
    const u = data.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
    if (u) Object.assign(usage, { input: u.prompt_tokens ?? 0, output: u.completion_tokens ?? 0 });
    const choice = (data.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0];
    return choice?.delta?.content ?? '';
  }
  if (format === 'responses') {
    if (data.type === 'response.completed') {
      const u = (data.response as { usage?: { input_tokens?: number; output_tokens?: number } }).usage;
      if (u) Object.assign(usage, { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0 });
    }
    return data.type === 'response.output_text.delta' ? String(data.delta ?? '') : '';
  }
  if (event === 'message_start') usage.input = ((data.message as { usage?: { input_tokens?: number } }).usage?.input_tokens) ?? 0;
  if (event === 'message_delta') {
    // The final counts: a converted stream knows the input only at the end.
    const u = data.usage as { input_tokens?: number; output_tokens?: number } | undefined;
    usage.output = u?.output_tokens ?? usage.output;
    if (u?.input_tokens) usage.input = u.input_tokens;
  }
  const delta = data.delta as { type?: string; text?: string } | undefined;
  return event === 'content_block_delta' && delta?.type === 'text_delta' ? (delta.text ?? '') : '';
}

/** Streams one answer with an API key in the chosen format; `onText` gets each piece as it comes. */
export async function streamAnswer(apiKey: string, format: ChatFormat, model: string, turns: Turn[], onText: (text: string) => void, signal?: AbortSignal): Promise<StreamedAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
  if (format === 'messages') headers['anthropic-version'] = '2023-06-01';
  const response = await fetch(PATHS[format], { method: 'POST', headers, body: JSON.stringify(bodyOf(format, model, turns)), signal });
  if (!response.ok || !response.body) throw await errorOf(response);
  const routing = [...response.headers].filter(([name]) => /^x-(routing|fallback)-/i.test(name));
  const usage: AnswerUsage = { input: 0, output: 0 };
  let sawUsage = false;
  for await (const { event, data } of readSse(response.body)) {
    if (data === '[DONE]') break;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(data) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (event === 'error' || parsed.type === 'error' || (parsed.error && format === 'chat')) {
      const error = parsed.error as { message?: string } | undefined;
      throw new Error(error?.message ?? 'The stream failed.');
    }
    const text = readEvent(format, event, parsed, usage);
    if (usage.input > 0 || usage.output > 0) sawUsage = true;
    if (text) onText(text);
  }
  return { requestId: response.headers.get('x-request-id'), routing, usage: sawUsage ? usage : undefined };
}
