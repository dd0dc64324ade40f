/**
 * Token log probabilities between Chat and Responses (docs/formats.md, "Log probabilities"): a
 * Chat client's `logprobs`/`top_logprobs` asked of a Responses upstream
 * (`include: ["message.output_text.logprobs"]`, `top_logprobs`), and the answer's
 * `output_text.logprobs` back as `choices[0].logprobs.content`, whole and streamed; the same the
 * other way. Fixtures: OpenAI's answers for gpt-4.1 with `top_logprobs: 2`.
 */
import { describe, expect, it } from 'vitest';
import { chatCodec } from '../../src/formats/chat/index.ts';
import { geminiCodec } from '../../src/formats/gemini/index.ts';
import { getFormat } from '../../src/formats/index.ts';
import { responsesCodec } from '../../src/formats/responses/index.ts';
import type { ChatRequest } from '../../src/ir/index.ts';
import { fitToModel } from '../../src/pipeline/fit-to-model.ts';
import type { CatalogModel, Provider } from '../../src/providers/index.ts';
import { parseEvents, readFixture, readJsonFixture, translateStream } from './stream-helpers.ts';

type Json = Record<string, any>;

/** What OpenAI gave for the two tokens of "Hello!" in every fixture. */
const TOKENS = (readJsonFixture('chat/response-logprobs.json') as Json).choices[0].logprobs.content as Json[];

const chatAsk = chatCodec.decodeRequest({ model: 'x', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true, top_logprobs: 2 });
const responsesAsk = responsesCodec.decodeRequest({ model: 'x', input: 'Say hello', include: ['message.output_text.logprobs'], top_logprobs: 2 });
const converted = (request: ChatRequest): ChatRequest => ({ ...request, extra: undefined });

describe('logprobs: the request', () => {
  it("a Chat client's logprobs ask a Responses upstream for them", () => {
    const body = responsesCodec.encodeRequest(converted(chatAsk), { upstreamModel: 'gpt-4.1', converted: true });
    // Before: dropped, and the answer's choices[0].logprobs was null.
    expect(body).toMatchObject({ include: ['message.output_text.logprobs'], top_logprobs: 2 });
  });

  it("a Responses client's ask them of a Chat upstream", () => {
    const body = chatCodec.encodeRequest(converted(responsesAsk), { upstreamModel: 'gpt-4.1', converted: true });
    expect(body).toMatchObject({ logprobs: true, top_logprobs: 2 });
  });

  it('beside converted thinking, both includes', () => {
    const body = responsesCodec.encodeRequest({ ...converted(chatAsk), reasoning: { enabled: true, effort: 'low' } }, { upstreamModel: 'gpt-4.1', converted: true });
    expect(body.include).toEqual(['reasoning.encrypted_content', 'message.output_text.logprobs']);
  });

  it('not asked, not sent', () => {
    const plain = chatCodec.decodeRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }] });
    expect(responsesCodec.encodeRequest(converted(plain), { upstreamModel: 'gpt-4.1', converted: true })).not.toHaveProperty('top_logprobs');
    expect(chatCodec.encodeRequest(converted(plain), { upstreamModel: 'gpt-4.1', converted: true })).not.toHaveProperty('logprobs');
  });

  it('an OpenAI reasoning model, which refuses them: left out, said', () => {
    const provider = { id: 'up', formats: ['responses'] } as unknown as Provider;
    const model: CatalogModel = { id: 'up/gpt-5', provider, upstreamId: 'gpt-5', spec: { id: 'gpt-5' }, formats: ['responses'] };
    const fitted = fitToModel(converted(chatAsk), model, 'responses');
    expect(fitted.adapted).toEqual(['logprobs=removed', 'top_logprobs=removed']);
    expect(responsesCodec.encodeRequest(fitted.request, { upstreamModel: 'gpt-5', converted: true })).not.toHaveProperty('top_logprobs');
  });
});

describe('logprobs: the answer', () => {
  it('Responses → a Chat client: choices[0].logprobs.content', () => {
    const answer = chatCodec.encodeResponse(responsesCodec.decodeResponse(readJsonFixture('responses/response-logprobs.json')), chatAsk) as Json;
    expect(answer.choices[0].message.content).toBe('Hello!');
    expect(answer.choices[0].logprobs).toEqual({ content: TOKENS, refusal: null });
  });

  it('Chat → a Responses client: output_text.logprobs', () => {
    const answer = responsesCodec.encodeResponse(chatCodec.decodeResponse(readJsonFixture('chat/response-logprobs.json')), responsesAsk) as Json;
    expect(answer.output[0].content[0]).toMatchObject({ type: 'output_text', text: 'Hello!', logprobs: TOKENS });
  });

  it('none asked: null, as OpenAI answers', () => {
    const plain = readJsonFixture('chat/response-logprobs.json') as Json;
    plain.choices[0].logprobs = null;
    const answer = chatCodec.encodeResponse(chatCodec.decodeResponse(plain), chatAsk) as Json;
    expect(answer.choices[0].logprobs).toBeNull();
  });
});

describe('logprobs: the stream', () => {
  it("Responses → a Chat client: each content chunk with its tokens' logprobs", () => {
    const sse = translateStream(responsesCodec, chatCodec, { ...chatAsk, stream: true }, readFixture('responses/logprobs.sse.txt'), 7);
    const chunks = parseEvents(sse)
      .filter((event) => event.data !== '[DONE]')
      .map((event) => event.data as Json)
      .filter((chunk) => chunk.choices?.[0]?.delta?.content);
    expect(chunks.map((chunk) => chunk.choices[0].delta.content).join('')).toBe('Hello!');
    expect(chunks.flatMap((chunk) => chunk.choices[0].logprobs.content)).toEqual(TOKENS);
  });

  it('Chat → a Responses client: output_text.delta and .done with the logprobs', () => {
    const sse = translateStream(chatCodec, responsesCodec, { ...responsesAsk, stream: true }, readFixture('chat/stream-logprobs.sse.txt'), 5);
    const events = parseEvents(sse).map((event) => event.data as Json);
    const deltas = events.filter((event) => event.type === 'response.output_text.delta');
    expect(deltas.flatMap((event) => event.logprobs)).toEqual(TOKENS);
    expect(events.find((event) => event.type === 'response.output_text.done')?.logprobs).toEqual(TOKENS);
    const completed = events.find((event) => event.type === 'response.completed')!;
    expect(completed.response.output[0].content[0].logprobs).toEqual(TOKENS);
  });
});

describe('logprobs: a Gemini client on an OpenAI upstream', () => {
  const geminiAsk = geminiCodec.decodeRequest({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }], generationConfig: { responseLogprobs: true, logprobs: 2 } }, { model: 'x', stream: false });
  const chosen = TOKENS.map((entry) => ({ token: entry.token, logProbability: entry.logprob }));
  const top = TOKENS.map((entry) => ({ candidates: (entry.top_logprobs as Json[]).map((alt) => ({ token: alt.token, logProbability: alt.logprob })) }));

  it('responseLogprobs asks for them (before: a 422, "has no equivalent in the upstream format")', () => {
    expect(geminiAsk.unconvertible).toBeUndefined();
    expect(chatCodec.encodeRequest(converted(geminiAsk), { upstreamModel: 'gpt-4.1', converted: true })).toMatchObject({ logprobs: true, top_logprobs: 2 });
  });

  it("the answer's logprobsResult and avgLogprobs", () => {
    const answer = geminiCodec.encodeResponse(chatCodec.decodeResponse(readJsonFixture('chat/response-logprobs.json')), geminiAsk) as Json;
    expect(answer.candidates[0].logprobsResult).toEqual({ topCandidates: top, chosenCandidates: chosen });
    expect(answer.candidates[0].avgLogprobs).toBeCloseTo((TOKENS[0].logprob + TOKENS[1].logprob) / 2);
  });

  it("streamed: each record with its tokens'", () => {
    const sse = translateStream(chatCodec, geminiCodec, { ...geminiAsk, stream: true }, readFixture('chat/stream-logprobs.sse.txt'), 9);
    const results = parseEvents(sse).flatMap((event) => ((event.data as Json).candidates?.[0]?.logprobsResult ? [(event.data as Json).candidates[0].logprobsResult] : []));
    expect(results.flatMap((result) => result.chosenCandidates)).toEqual(chosen);
    expect(results.flatMap((result) => result.topCandidates)).toEqual(top);
  });
});

describe('logprobs: a Chat or Responses client on a Gemini upstream', () => {
  // Google's shape (generationConfig.responseLogprobs → candidates[0].logprobsResult), with the tokens of the OpenAI fixtures; Google gives no bytes.
  const expected = TOKENS.map((entry) => ({ token: entry.token, logprob: entry.logprob, bytes: null, top_logprobs: (entry.top_logprobs as Json[]).map((alt) => ({ token: alt.token, logprob: alt.logprob, bytes: null })) }));

  it('logprobs and top_logprobs ask Gemini for responseLogprobs and logprobs (before: not asked)', () => {
    const body = geminiCodec.encodeRequest(converted(chatAsk), { upstreamModel: 'gemini-2.0-flash', converted: true }) as Json;
    expect(body.generationConfig).toMatchObject({ responseLogprobs: true, logprobs: 2 });
    const none = geminiCodec.encodeRequest(converted({ ...chatAsk, topLogprobs: 0 }), { upstreamModel: 'gemini-2.0-flash', converted: true }) as Json;
    expect(none.generationConfig).toEqual({ responseLogprobs: true });
    expect((geminiCodec.encodeRequest(converted({ ...chatAsk, logprobs: undefined, topLogprobs: undefined }), { upstreamModel: 'gemini-2.0-flash', converted: true }) as Json).generationConfig ?? {}).not.toHaveProperty('responseLogprobs');
  });

  it("the candidate's logprobsResult → choices[0].logprobs.content and output_text.logprobs", () => {
    const decoded = geminiCodec.decodeResponse(readJsonFixture('gemini/response-logprobs.json'));
    expect((chatCodec.encodeResponse(decoded, chatAsk) as Json).choices[0].logprobs).toEqual({ content: expected, refusal: null });
    expect((responsesCodec.encodeResponse(decoded, responsesAsk) as Json).output[0].content[0].logprobs).toEqual(expected);
  });

  it("streamed: each chunk with its record's tokens", () => {
    const sse = translateStream(geminiCodec, chatCodec, { ...chatAsk, stream: true }, readFixture('gemini/logprobs.sse.txt'), 11);
    const chunks = parseEvents(sse)
      .filter((event) => event.data !== '[DONE]')
      .map((event) => event.data as Json)
      .filter((chunk) => chunk.choices?.[0]?.delta?.content);
    expect(chunks.map((chunk) => chunk.choices[0].delta.content)).toEqual(['Hello', '!']);
    expect(chunks.map((chunk) => chunk.choices[0].logprobs.content)).toEqual([[expected[0]], [expected[1]]]);
  });

  it("a model without them: Google's refusal names the ask, and the body goes again without it", () => {
    const said = geminiCodec.decodeError!(400, { error: { code: 400, message: 'Logprobs is not enabled for models/gemini-2.5-pro', status: 'INVALID_ARGUMENT' } });
    expect(said.param).toBe('generationConfig.responseLogprobs');
    const body = geminiCodec.encodeRequest(converted(chatAsk), { upstreamModel: 'gemini-2.5-pro', converted: true }) as Json;
    const refit = getFormat('gemini').fit!.withoutRefused!(body, said.param!)!;
    expect(refit).toMatchObject({ adapted: 'logprobs=removed', byModel: true });
    expect(refit.body.generationConfig).not.toHaveProperty('responseLogprobs');
    expect(refit.body.generationConfig).not.toHaveProperty('logprobs');
    expect(geminiCodec.decodeError!(400, { error: { code: 400, message: 'Unable to submit request because Logprobs is not supported for this model.', status: 'INVALID_ARGUMENT' } }).param).toBe('generationConfig.responseLogprobs');
    expect(geminiCodec.decodeError!(400, { error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } }).param).toBeUndefined();
  });
});
