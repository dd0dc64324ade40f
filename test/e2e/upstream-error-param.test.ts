/**
 * An upstream's 400 names the parameter it refused (`error.param`) and its own `error.code`
 * (`string_above_max_length`, `context_length_exceeded`…). The client sees that param in its own
 * `error.param` (openai's `APIError.param`) and the upstream's code in `error.details.upstream_code`
 * (`error.code` stays the spec's stable code), whether the refusal came as an HTTP answer, as a
 * stream's first record, or through a conversion.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const REFUSAL = {
  message: "Invalid 'messages[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10485761 instead.",
  type: 'invalid_request_error',
  param: 'messages[0].content',
  code: 'string_above_max_length',
};

describe("an upstream refusal's param and code reach the client", () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let asStreamRecord = false;

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => (asStreamRecord ? { sse: chatSse([{ error: REFUSAL }], false) } : { status: 400, json: { error: REFUSAL } }));
    gw = await spawnGateway({ config: { providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['gpt-up'] } } } });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const refused = async (call: Promise<unknown>) => {
    const error = (await call.then(
      () => undefined,
      (e: unknown) => e,
    )) as InstanceType<typeof OpenAI.APIError>;
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
});
