/**
 * An upstream's 400 names the parameter it refused (`error.param`) and its own `error.code`
 * (`string_above_max_length`, `context_length_exceeded`…). The client sees that param in its own
 * `error.param` (openai's `APIError.param`) and the upstream's code in `error.details.upstream_code`
 * (`error.code` stays the spec's stable code), whether the refusal came as an HTTP answer, as a
 * stream's first record, or through a conversion.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, namedSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const REFUSAL = {
  message: "Invalid 'messages[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10485761 instead.",
  type: 'invalid_request_error',
  param: 'messages[0].content',
  code: 'string_above_max_length',
};

/** How the Responses upstream answers: an HTTP 400, a stream whose first record is the refusal, or one that fails after some text. */
let responsesReply: 'http' | 'first' | 'later' = 'http';
/** How the Chat upstream answers: an HTTP 400, a stream whose first record is the refusal, or one that fails after some text. */
let chatReply: 'http' | 'first' | 'later' = 'http';

const RESPONSES_REFUSAL = { message: "Invalid 'input[0].content[0].image_url': the image could not be downloaded.", type: 'invalid_request_error', param: 'input[0].content[0].image_url', code: 'invalid_image_url' };

function chatUpstream() {
  if (chatReply === 'http') return { status: 400, json: { error: REFUSAL } };
  if (chatReply === 'first') return { sse: chatSse([{ error: REFUSAL }], false) };
  const chunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-up', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] };
  return { sse: chatSse([chunk, { error: REFUSAL }], false) };
}

function responsesUpstream() {
  if (responsesReply === 'http') return { status: 400, json: { error: RESPONSES_REFUSAL } };
  // The flat fields of the SDK's ResponseErrorEvent and the nested error OpenAI sends beside them.
  const error = { type: 'error', sequence_number: 0, code: RESPONSES_REFUSAL.code, message: RESPONSES_REFUSAL.message, param: RESPONSES_REFUSAL.param, error: RESPONSES_REFUSAL };
  if (responsesReply === 'first') return { sse: namedSse([error]) };
  const response = { id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', model: 'gpt-r', output: [] };
  const item = { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  return {
    sse: namedSse([
      { type: 'response.created', sequence_number: 0, response },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
      { type: 'response.content_part.added', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      { type: 'response.output_text.delta', sequence_number: 3, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hel' },
      { ...error, sequence_number: 4 },
    ]),
  };
}

describe("an upstream refusal's param and code reach the client", () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let asStreamRecord = false;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      if (request.path === '/v1/responses') return responsesUpstream();
      if (asStreamRecord) return { sse: chatSse([{ error: REFUSAL }], false) };
      return chatUpstream();
    });
    gw = await spawnGateway({
      config: {
        providers: {
          up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['gpt-up'] },
          ur: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-r'] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  /** The APIError a call was refused with. */
  const caught = async (call: Promise<unknown>) =>
    (await call.then(
      () => undefined,
      (e: unknown) => e,
    )) as InstanceType<typeof OpenAI.APIError>;

  const refused = async (call: Promise<unknown>) => {
    const error = await caught(call);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'bad_request', type: 'invalid_request_error', param: 'messages[0].content' });
    expect((error.error as { details?: Record<string, unknown> }).details).toMatchObject({ provider: 'up', upstream_status: 400, upstream_code: 'string_above_max_length' });
  };

  it.each([false, true])('Chat passthrough, stream %s: an HTTP 400', async (stream) => {
    asStreamRecord = false;
    await refused(openai.chat.completions.create({ model: 'up/gpt-up', messages: [{ role: 'user', content: 'hi' }], stream } as any));
  });

  it("Chat passthrough: the error as a 200 stream's first record", async () => {
    asStreamRecord = true;
    const error = (await openai.chat.completions.create({ model: 'up/gpt-up', messages: [{ role: 'user', content: 'hi' }], stream: true }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toMatchObject({ status: 400, code: 'bad_request', param: 'messages[0].content' });
    expect((error.error as { details?: Record<string, unknown> }).details).toMatchObject({ upstream_code: 'string_above_max_length' });
  });

  it('converted: a Responses client on the Chat upstream', async () => {
    asStreamRecord = false;
    await refused(openai.responses.create({ model: 'up/gpt-up', input: 'hi' }));
  });

  const responsesRefused = async (call: Promise<unknown>) => {
    const error = await caught(call);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'bad_request', param: RESPONSES_REFUSAL.param });
    expect((error.error as { details?: Record<string, unknown> }).details).toMatchObject({ provider: 'ur', upstream_code: 'invalid_image_url' });
  };

  it.each(['http', 'first'] as const)('a Responses upstream (%s): passthrough and a converted Chat client get its param', async (reply) => {
    responsesReply = reply;
    await responsesRefused(openai.responses.create({ model: 'ur/gpt-r', input: 'hi', stream: reply === 'first' } as any));
    await responsesRefused(openai.chat.completions.create({ model: 'ur/gpt-r', messages: [{ role: 'user', content: 'hi' }], stream: reply === 'first' } as any));
  });

  /** Reads a stream to its end; the APIError the SDK threw at the error event, with the text that came before it. */
  async function failedStream(stream: AsyncIterable<unknown>, textOf: (chunk: any) => string) {
    let text = '';
    try {
      for await (const chunk of stream) text += textOf(chunk);
    } catch (error) {
      return { text, error: error as InstanceType<typeof OpenAI.APIError> };
    }
    throw new Error(`the stream ended without an error after ${JSON.stringify(text)}`);
  }

  it("converted streams that fail after some text: the error event names the upstream's param and code", async () => {
    responsesReply = 'later';
    const chat = await failedStream(await openai.chat.completions.create({ model: 'ur/gpt-r', messages: [{ role: 'user', content: 'hi' }], stream: true }), (c) => c.choices?.[0]?.delta?.content ?? '');
    expect(chat.text).toBe('Hel');
    expect(chat.error).toMatchObject({ code: 'bad_request', param: RESPONSES_REFUSAL.param });
    expect((chat.error.error as { details?: Record<string, unknown> }).details).toMatchObject({ upstream_code: 'invalid_image_url' });
    chatReply = 'later';
    const responses = await failedStream(await openai.responses.create({ model: 'up/gpt-up', input: 'hi', stream: true }), (e) => (e.type === 'response.output_text.delta' ? e.delta : ''));
    expect(responses.text).toBe('Hel');
    expect(responses.error).toMatchObject({ code: 'bad_request', param: REFUSAL.param });
    chatReply = 'http';
  });
});
