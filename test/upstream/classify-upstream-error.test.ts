import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/errors/index.ts';
import { getCodec } from '../../src/formats/registry.ts';
import { parseSse } from '../../src/sse/index.ts';
import { classifyUpstreamError, upstreamError, type UpstreamErrorPhase } from '../../src/upstream/index.ts';
import { withRetryHint } from '../../src/errors/index.ts';

const PHASES: UpstreamErrorPhase[] = ['response', 'first-record', 'mid-stream', 'media'];

describe('classifyUpstreamError', () => {
  it.each([
    [{ status: 429, type: 'rate_limit_error' }, 'rate_limit_exceeded'],
    [{ status: 529, type: 'overloaded_error' }, 'provider_unavailable'],
    [{ status: 503 }, 'provider_unavailable'],
    [{ status: 504 }, 'provider_timeout'],
    [{ status: 408 }, 'provider_timeout'],
    [{ status: 413 }, 'request_too_large'],
    [{ status: 401, type: 'invalid_request_error', code: 'invalid_api_key' }, 'provider_error'],
    [{ status: 403, type: 'permission_error' }, 'provider_error'],
    // The gateway's account with an OpenAI-compatible provider out of credit (OpenRouter, DeepSeek): as OpenAI's insufficient_quota.
    [{ status: 402, code: '402' }, 'rate_limit_exceeded'],
    // Google's answer to a wrong API key: a 400 whose ErrorInfo reason names it (the gateway's key, not the client's request).
    [{ status: 400, type: 'INVALID_ARGUMENT', code: 'API_KEY_INVALID' }, 'provider_error'],
    [{ status: 404, type: 'invalid_request_error', code: 'model_not_found' }, 'model_not_found'],
    [{ status: 400, type: 'invalid_request_error', code: 'context_length_exceeded' }, 'bad_request'],
    [{ status: 422 }, 'bad_request'],
    [{ status: 500, type: 'api_error' }, 'provider_error'],
    [{ status: 500, type: 'overloaded_error' }, 'provider_unavailable'],
    [{ status: 502 }, 'provider_error'],
  ] as const)('an HTTP answer %o is %s', (facts, code) => {
    expect(classifyUpstreamError({ ...facts, phase: 'response' })).toBe(code);
  });

  it.each([
    [{ type: 'rate_limit_error' }, 'rate_limit_exceeded'],
    [{ type: 'requests', code: 'rate_limit_exceeded' }, 'rate_limit_exceeded'],
    [{ type: 'insufficient_quota' }, 'rate_limit_exceeded'],
    [{ type: 'overloaded_error' }, 'provider_unavailable'],
    [{ type: 'timeout_error' }, 'provider_timeout'],
    [{ type: 'request_too_large' }, 'request_too_large'],
    [{ type: 'authentication_error' }, 'provider_error'],
    [{ type: 'not_found_error' }, 'model_not_found'],
    [{ type: 'invalid_request_error' }, 'bad_request'],
    [{ type: 'error', code: 'server_error' }, 'provider_error'],
    [{ type: 'server_error' }, 'provider_error'],
    [{}, 'provider_error'],
  ] as const)('an error record %o is %s, whenever it arrives', (facts, code) => {
    for (const phase of PHASES) expect(classifyUpstreamError({ ...facts, phase })).toBe(code);
  });

  it('gives one fault one code, as an HTTP answer, as a first record and in the middle of a stream', () => {
    const anthropic = getCodec('messages');
    const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    const record = parseSse(`event: error\ndata: ${JSON.stringify(body)}\n\n`)[0];
    const http = upstreamError('a', { ...anthropic.decodeError(529, body), status: 529, phase: 'response' });
    const first = upstreamError('a', { ...anthropic.decodeStreamError(record)!, phase: 'first-record' });
    const parts = anthropic.createStreamDecoder().push(record);
    expect(http.code).toBe('provider_unavailable');
    expect(first.code).toBe('provider_unavailable');
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'provider_unavailable', status: 503 } });
  });

  it.each([
    [429, 'RESOURCE_EXHAUSTED', 'rate_limit_exceeded'],
    [503, 'UNAVAILABLE', 'provider_unavailable'],
    [504, 'DEADLINE_EXCEEDED', 'provider_timeout'],
    [400, 'INVALID_ARGUMENT', 'bad_request'],
    [404, 'NOT_FOUND', 'model_not_found'],
    [403, 'PERMISSION_DENIED', 'provider_error'],
    [500, 'INTERNAL', 'provider_error'],
  ] as const)('gives a Gemini %i %s one code (%s): as an HTTP answer, as a first record and after text', (status, name, code) => {
    const gemini = getCodec('gemini');
    const body = { error: { code: status, message: `Google says ${name}`, status: name } };
    const [text, error] = parseSse(`data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"modelVersion":"gemini-3-pro-preview","responseId":"r1"}\r\n\r\ndata: ${JSON.stringify(body)}\r\n\r\n`);
    expect(upstreamError('g', { ...gemini.decodeError(status, body), status, phase: 'response' }).code).toBe(code);
    expect(upstreamError('g', { ...gemini.decodeStreamError(error)!, phase: 'first-record' }).code).toBe(code);
    const decoder = gemini.createStreamDecoder();
    const parts = [...decoder.push(text), ...decoder.push(error), ...decoder.end()];
    expect(parts.filter((p) => p.type === 'error')).toEqual([{ type: 'error', error: { code, message: `Google says ${name}`, status: ERROR_STATUS[code], upstreamStatus: status } }]);
    expect(parts.some((p) => p.type === 'end')).toBe(false);
  });

  it('reads each format\'s error records, and no other record', () => {
    const [chat] = parseSse('data: {"error":{"message":"slow","type":"requests","code":"rate_limit_exceeded"}}\n\n');
    expect(getCodec('chat').decodeStreamError(chat)).toEqual({ message: 'slow', type: 'requests', code: 'rate_limit_exceeded' });
    const [content] = parseSse('data: {"choices":[{"delta":{"content":"an \\"error\\""}}]}\n\n');
    expect(getCodec('chat').decodeStreamError(content)).toBeUndefined();
    const [flat] = parseSse('event: error\ndata: {"type":"error","sequence_number":3,"code":"server_error","message":"boom","param":null}\n\n');
    expect(getCodec('responses').decodeStreamError(flat)).toEqual({ message: 'boom', code: 'server_error' });
    const [failed] = parseSse('event: response.failed\ndata: {"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"slow"}}}\n\n');
    expect(getCodec('responses').decodeStreamError(failed)).toEqual({ message: 'slow', code: 'rate_limit_exceeded' });
    const [delta] = parseSse('event: content_block_delta\ndata: {"type":"content_block_delta"}\n\n');
    expect(getCodec('messages').decodeStreamError(delta)).toBeUndefined();
  });

  it('words the error for the client and never echoes what an upstream said about its credentials', () => {
    const error = upstreamError('openai', { status: 401, message: 'Incorrect API key provided: sk-abcdef123456', phase: 'response' });
    expect(error).toMatchObject({ code: 'provider_error', details: { provider: 'openai', upstream_status: 401 } });
    expect(error.message).not.toContain('sk-abcdef');
    const limited = upstreamError('openai', { status: 429, message: 'slow down', headers: { 'retry-after': '7' }, phase: 'media' });
    expect(limited).toMatchObject({ code: 'rate_limit_exceeded', retryAfter: 7, headers: { 'Retry-After': '7' } });
    // OpenAI's retry-after-ms first (Retry-After rounded up to whole seconds, the milliseconds kept); none at all: unknown here, 1 s in the answer (withRetryHint).
    const ms = upstreamError('openai', { status: 429, message: 'slow down', headers: { 'retry-after-ms': '2500', 'retry-after': '9' }, phase: 'response' });
    expect(ms).toMatchObject({ retryAfter: 3, retryAfterMs: 2500, headers: { 'Retry-After': '3' } });
    // A fractional Retry-After (the SDKs read fractions) keeps its milliseconds too.
    expect(upstreamError('openai', { status: 429, message: 'slow down', headers: { 'retry-after': '0.4' }, phase: 'response' })).toMatchObject({ retryAfter: 1, retryAfterMs: 400 });
    // Google's RetryInfo (the body's wait, no header): "31.5s" stays 31,500 ms.
    expect(upstreamError('google', { status: 429, message: 'slow down', retryAfter: 32, retryAfterMs: 31_500, phase: 'response' })).toMatchObject({ retryAfter: 32, retryAfterMs: 31_500 });
    // An absurd wait (1e308 ms, 1e20 s) is held to a day: Retry-After stays a whole number of seconds, not '1e+305'.
    const day = { retryAfter: 86_400, retryAfterMs: 86_400_000, headers: { 'Retry-After': '86400' } };
    expect(upstreamError('openai', { status: 429, message: 'slow down', headers: { 'retry-after-ms': '1e308' }, phase: 'response' })).toMatchObject(day);
    expect(upstreamError('openai', { status: 429, message: 'slow down', headers: { 'retry-after': '1e20' }, phase: 'response' })).toMatchObject(day);
    expect(upstreamError('google', { status: 429, message: 'slow down', retryAfter: 1e300, phase: 'response' })).toMatchObject(day);
    const silent = upstreamError('openai', { status: 429, message: 'slow down', phase: 'response' });
    expect(silent.retryAfter).toBeUndefined();
    expect(withRetryHint(silent)).toMatchObject({ code: 'rate_limit_exceeded', status: 429, retryAfter: 1, message: silent.message });
    const other = upstreamError('openai', { status: 500, message: 'boom', phase: 'response' });
    expect(withRetryHint(other)).toBe(other);
  });
});

describe("a context overflow in any upstream's words", () => {
  it.each([
    ['OpenAI', { code: 'context_length_exceeded', message: "This model's maximum context length is 128000 tokens." }],
    ['Anthropic', { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' }],
    ['Gemini', { message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).' }],
    ['Bedrock', { message: 'Input is too long for requested model.' }],
  ])('%s: a bad_request whose message carries the words clients know it by', (_, said) => {
    const error = upstreamError('p', { status: 400, phase: 'response', ...said });
    expect(error.code).toBe('bad_request');
    expect(error.message).toContain('context_length_exceeded');
    expect(error.message).toContain('prompt is too long');
    expect(error.message).toContain('exceeds the context window');
    expect(error.message).toContain(said.message);
  });

  it.each([
    ['OpenAI', "This model's maximum context length is 128000 tokens. However, your messages resulted in 210000 tokens. Please reduce the length of the messages."],
    ['OpenAI (older)', "This model's maximum context length is 8192 tokens, however you requested 9000 tokens (8000 in your prompt; 1000 for the completion)."],
    ['Gemini', 'The input token count (210000) exceeds the maximum number of tokens allowed (128000).'],
  ])("%s: the counts the upstream gave, in Anthropic's words (what Claude Code reads)", (source, message) => {
    const error = upstreamError('p', { status: 400, phase: 'response', message });
    const [actual, limit] = source === 'OpenAI (older)' ? ['9000', '8192'] : ['210000', '128000'];
    expect(error.message).toContain(`the prompt is too long: ${actual} tokens > ${limit} maximum; it exceeds the context window of the model (context_length_exceeded)`);
    // Claude Code's reading of them.
    expect(/prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/i.exec(error.message)?.slice(1)).toEqual([actual, limit]);
  });

  it('reads the counts from the head of a long message only (an upstream body is not bounded)', () => {
    // Before: the counts' pattern ran over the whole message, quadratic where the words repeat
    // (2 MB of them held the event loop ~15 s); the counts stand in the message's first words.
    const message = `The input token count (210000) exceeds the maximum number of tokens allowed (128000). ${'maximum context length is 1 tokens '.repeat(60_000)}`;
    const started = performance.now();
    const error = upstreamError('p', { status: 400, phase: 'response', message });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.message).toContain('the prompt is too long: 210000 tokens > 128000 maximum');
  });

  it('tells a long message that is no overflow quickly', () => {
    // Before: 'input token count.*exceeds the maximum' scanned to the line's end from each
    // 'input token count', the square of the message: 1 MB of them took ~25 s.
    const message = 'input token count '.repeat(60_000);
    const started = performance.now();
    const error = upstreamError('p', { status: 400, phase: 'response', message });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.message).not.toContain('context_length_exceeded');
  });

  it('another refusal keeps its own words', () => {
    const error = upstreamError('p', { status: 400, phase: 'response', type: 'invalid_request_error', message: "Invalid 'messages[0].content': string too long." });
    expect(error.message).toBe("The provider 'p' rejected the request: Invalid 'messages[0].content': string too long.");
  });
});
