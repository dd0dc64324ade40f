/**
 * Upstreams whose streams fail mid-answer, one per wire format, for the agent tests' failing-stream
 * cases: each streams `Partial ` and then the upstream's own error record (Chat's `data: {"error"…}`,
 * Responses' `response.failed`, Messages' `error` event, Gemini's error object after a record).
 * With `whole`, a request that does not stream gets the upstream's 500 (Gemini: its error status)
 * in its format, as a client's fallback after a failed stream meets.
 */
import { chatSse, namedSse, startFakeUpstream, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';

/** The message every failing upstream gives (OpenAI's for a 500). */
export const UPSTREAM_ERROR = 'The server had an error while processing your request.';

const OPENAI_ERROR = { error: { message: UPSTREAM_ERROR, type: 'server_error', param: null, code: null } };

/** OpenAI's 500 to a request without `stream`, when `whole` asks for it. */
const wholeFailure = (whole: boolean | undefined, request: ReceivedRequest) => (whole && (request.json as { stream?: unknown } | undefined)?.stream !== true ? { status: 500, json: OPENAI_ERROR } : undefined);

/** A Chat stream: a role and `Partial `, then an error record. */
export function startFailingChat(options: { whole?: boolean } = {}): Promise<FakeUpstream> {
  const chunk = (delta: Record<string, unknown>) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'flaky', choices: [{ index: 0, delta, finish_reason: null }] });
  const sse = [...chatSse([chunk({ role: 'assistant', content: 'Partial ' })], false), `data: {"error":{"message":"${UPSTREAM_ERROR}","type":"server_error","code":null}}\n\n`];
  return startFakeUpstream((request) => wholeFailure(options.whole, request) ?? { sse });
}

/** A Responses stream: a message item with `Partial `, then `response.failed`. */
export function startFailingResponses(options: { whole?: boolean } = {}): Promise<FakeUpstream> {
  const response = { id: 'resp_f', object: 'response', created_at: 1, status: 'in_progress', model: 'flaky', output: [] };
  const sse = namedSse([
    { type: 'response.created', sequence_number: 0, response },
    { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
    { type: 'response.content_part.added', sequence_number: 2, output_index: 0, item_id: 'msg_1', content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', sequence_number: 3, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Partial ' },
    { type: 'response.failed', sequence_number: 4, response: { ...response, status: 'failed', error: { code: 'server_error', message: UPSTREAM_ERROR } } },
  ]);
  return startFakeUpstream((request) => wholeFailure(options.whole, request) ?? { sse });
}

/** A Messages stream: a text block with `Partial `, then an `error` event. */
export function startFailingMessages(): Promise<FakeUpstream> {
  const sse = namedSse([
    { type: 'message_start', message: { id: 'msg_f', type: 'message', role: 'assistant', model: 'flaky', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial ' } },
    { type: 'error', error: { type: 'api_error', message: UPSTREAM_ERROR } },
  ]);
  return startFakeUpstream(() => ({ sse }));
}

export interface FailingGeminiOptions {
  /** The error the stream ends with: Google's 500 INTERNAL or 503 UNAVAILABLE. */
  code: 500 | 503;
}

/** A Gemini stream (`gemini-2.5-flash`): a record with `Partial `, then Google's error object; with `whole`, `:generateContent` gets the error as its answer. */
export function startFailingGemini(options: FailingGeminiOptions & { whole?: boolean }): Promise<FakeUpstream> {
  const error = { code: options.code, message: UPSTREAM_ERROR, status: options.code === 503 ? 'UNAVAILABLE' : 'INTERNAL' };
  const sse = [
    'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Partial "}]},"index":0}],"modelVersion":"gemini-2.5-flash"}\r\n\r\n',
    `${JSON.stringify({ error }, null, 2)}\n`,
  ];
  return startFakeUpstream((request) => (options.whole && !request.path.includes(':streamGenerateContent') ? { status: options.code, json: { error } } : { sse }));
}
