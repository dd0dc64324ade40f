/**
 * The Anthropic cloud SDKs, unmodified (pinned in test/clients), with their base URL at the real
 * gateway: `@anthropic-ai/vertex-sdk` (AnthropicVertex, Google's OAuth token the gateway key: an
 * OAuth2Client of google-auth-library holding it, so nothing asks Google) and
 * `@anthropic-ai/bedrock-sdk` (AnthropicBedrock, the gateway key as its Bedrock API key), plus the
 * AWS SDK's own BedrockRuntimeClient for Bedrock's CountTokens (the Anthropic Bedrock SDK has no
 * count). Each on a Claude model named by the cloud's id (an Anthropic fake: passthrough) and on a
 * Chat model (conversion): JSON, streamed, a tool call and its result, the token count, and failures
 * arriving as the SDK's own error classes. The fakes are strict (test/helpers/strict-fakes.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { namedSse, startFakeUpstream, startOverloadedMessagesFake, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Json = Record<string, any>;

const pick = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);
const LOOKUP = { name: 'lookup', description: 'Weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const ASK = [{ role: 'user' as const, content: 'Say hi' }];
/**
 * How each of the faulty upstream's models fails after its stream began (an Anthropic error event, a cut connection, a
 * stall past the idle timeout), the exception of InvokeModelWithResponseStream's union it must end in, and its message.
 */
const FAULTS: Record<string, { error?: [type: string, message: string]; cut?: true; stall?: true; exception: string; said: RegExp }> = {
  'claude-throttled': { error: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'], exception: 'ThrottlingException', said: /per-minute rate limit/ },
  'claude-overloaded': { error: ['overloaded_error', 'Overloaded'], exception: 'ServiceUnavailableException', said: /Overloaded/ },
  'claude-invalid': { error: ['invalid_request_error', 'Output blocked by content filtering policy'], exception: 'ValidationException', said: /content filtering/ },
  'claude-broken': { error: ['api_error', 'Internal server error'], exception: 'InternalServerException', said: /Internal server error/ },
  'claude-cut': { cut: true, exception: 'ModelStreamErrorException', said: /connection to the provider failed/ },
  'claude-stalled': { stall: true, exception: 'ModelTimeoutException', said: /did not answer in time/ },
};
/** [model, exception, message] for each fault. */
const FAULT_CASES = Object.entries(FAULTS).map(([model, fault]) => [model, fault.exception, fault.said] as const);
function faultOf(model: string): FakeReply {
  const fault = FAULTS[model] ?? { error: ['api_error', `no fault named ${model}`], exception: '', said: /./ };
  const start = { type: 'message_start', message: { id: 'msg_f', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } };
  const events = [start, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }];
  if (fault.error) events.push({ type: 'error', error: { type: fault.error[0], message: fault.error[1] } } as never);
  // Pieces 20 ms apart, so the first reach the client before the cut.
  return { sse: namedSse(events), ...(fault.cut ? { reset: true, delayMs: 20 } : {}), ...(fault.stall ? { stall: true } : {}) };
}
const textOf = (message: Json) => message.content.filter((b: Json) => b.type === 'text').map((b: Json) => b.text).join('');

describe('the Anthropic Vertex and Bedrock SDKs through the gateway', () => {
  let chat: StrictFake;
  let messages: StrictFake;
  let failing: FakeUpstream;
  let faulty: FakeUpstream;
  let gw: SpawnedGateway;
  let AnthropicVertex: any;
  let AnthropicBedrock: any;
  let OAuth2Client: any;
  let aws: any;
  let NodeHttpHandler: any;
  /** The paths the SDKs asked (their `fetch` option, the global fetch recording each URL). */
  const asked: string[] = [];
  const recording = (input: string | URL | Request, init?: RequestInit) => {
    asked.push(new URL(input instanceof Request ? input.url : input).pathname);
    return fetch(input, init);
  };

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick, finalText: 'Hi from Chat.' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } }, pick, finalText: 'Hi from Claude.' });
    // An Anthropic upstream overloaded after its first event.
    failing = await startOverloadedMessagesFake();
    // An Anthropic upstream whose streams fail after message_start, each model its own way.
    faulty = await startFakeUpstream((request) => faultOf(String(request.json?.model)));
    gw = await spawnGateway({
      config: {
        providers: {
          busy: { plugin: 'anthropic', baseURL: failing.url, apiKey: 'x', models: ['claude-x'] },
          faulty: { plugin: 'anthropic', baseURL: faulty.url, apiKey: 'x', models: Object.keys(FAULTS), timeouts: { idle: 300 } },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
    ({ AnthropicVertex } = await clientModule('@anthropic-ai/vertex-sdk'));
    ({ AnthropicBedrock } = await clientModule('@anthropic-ai/bedrock-sdk'));
    ({ OAuth2Client } = await clientModule('google-auth-library'));
    aws = await clientModule('@aws-sdk/client-bedrock-runtime');
    ({ NodeHttpHandler } = await clientModule('@smithy/node-http-handler'));
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages, failing, faulty]) await fake?.close();
  });

  /** An OAuth2Client whose access token is the gateway key: its Authorization is `Bearer <key>`, no refresh, no network. */
  const tokenClient = (key: string) => {
    const client = new OAuth2Client();
    client.setCredentials({ access_token: key });
    return client;
  };
  const vertex = (options: { baseURL?: string; region?: string; key?: string } = {}) =>
    new AnthropicVertex({ baseURL: options.baseURL ?? `${gw.url}/v1`, region: options.region ?? 'us-east5', projectId: 'my-project', authClient: tokenClient(options.key ?? gw.key!), maxRetries: 0, fetch: recording });
  const bedrock = (key = gw.key!) => new AnthropicBedrock({ baseURL: gw.url, awsRegion: 'us-east-1', apiKey: key, maxRetries: 0, fetch: recording });
  /** /v1/messages/count_tokens for the same request: what a cloud's count must say. */
  const directCount = async (body: Json) => {
    const res = await fetch(`${gw.url}/v1/messages/count_tokens`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    return ((await res.json()) as Json).input_tokens as number;
  };

  /** A model as the cloud's SDK names it, what its upstream says, the fake behind it. */
  type Served = [model: string, said: string, fakeOf: () => StrictFake];
  const MODELS: Record<'vertex' | 'bedrock', Served[]> = {
    vertex: [
      ['claude-sonnet-4-5@20250929', 'Hi from Claude.', () => messages],
      ['oc/gpt-4o-mini', 'Hi from Chat.', () => chat],
    ],
    bedrock: [
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'Hi from Claude.', () => messages],
      ['oc/gpt-4o-mini', 'Hi from Chat.', () => chat],
    ],
  };

  describe.each(['vertex', 'bedrock'] as const)('%s', (cloud) => {
    const client = () => (cloud === 'vertex' ? vertex() : bedrock());

    it.each(MODELS[cloud])('messages.create on %s: JSON, then streamed', async (model, said, fakeOf) => {
      const sdk = client();
      const answer = await sdk.messages.create({ model, max_tokens: 256, messages: ASK });
      expect(answer).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
      expect(textOf(answer)).toBe(said);
      const stream = sdk.messages.stream({ model, max_tokens: 256, messages: ASK });
      const deltas: string[] = [];
      stream.on('text', (text: string) => deltas.push(text));
      const final = await stream.finalMessage();
      expect(deltas.join('')).toBe(said);
      expect(textOf(final)).toBe(said);
      expect(final.usage.output_tokens).toBeGreaterThan(0);
      expect(fakeOf().rejections).toEqual([]);
    });

    it.each(MODELS[cloud])('a tool call on %s, then the answer to its result (streamed)', async (model, said, fakeOf) => {
      const sdk = client();
      const first = await sdk.messages.create({ model, max_tokens: 256, tools: [LOOKUP], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
      expect(first.stop_reason).toBe('tool_use');
      const call = first.content.find((b: Json) => b.type === 'tool_use');
      expect(call).toMatchObject({ name: 'lookup', input: { city: 'Paris' } });
      const second = await sdk.messages
        .stream({
          model,
          max_tokens: 256,
          tools: [LOOKUP],
          messages: [
            { role: 'user', content: 'Weather in Paris?' },
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny, 21 C' }] },
          ],
        })
        .finalMessage();
      expect(textOf(second)).toBe(said);
      expect(fakeOf().rejections).toEqual([]);
    });

    it("an unknown model is the SDK's NotFoundError, a wrong key its AuthenticationError", async () => {
      const unknown = await client()
        .messages.create({ model: cloud === 'vertex' ? 'claude-nothing-9@20250929' : 'anthropic.claude-nothing-9-v1:0', max_tokens: 16, messages: ASK })
        .catch((error: unknown) => error);
      const SDK = cloud === 'vertex' ? AnthropicVertex : AnthropicBedrock;
      expect(unknown).toBeInstanceOf(SDK.NotFoundError);
      expect(unknown).toMatchObject({ status: 404, error: { type: 'error', error: { type: 'not_found_error' } } });
      const wrongKey = await (cloud === 'vertex' ? vertex({ key: 'sk-not-a-key' }) : bedrock('sk-not-a-key'))
        .messages.create({ model: MODELS[cloud][0][0], max_tokens: 16, messages: ASK })
        .catch((error: unknown) => error);
      expect(wrongKey).toBeInstanceOf(SDK.AuthenticationError);
      expect(wrongKey).toMatchObject({ status: 401, error: { error: { type: 'authentication_error' } } });
    });
  });

  it.each(FAULT_CASES)("bedrock: messages.stream on faulty/%s, failing after its first text, raises the SDK's APIError (%s, lower camel case, as its type; the message)", async (model, exception, said) => {
    const type = exception[0].toLowerCase() + exception.slice(1);
    const stream = bedrock().messages.stream({ model: `faulty/${model}`, max_tokens: 64, messages: ASK });
    const deltas: string[] = [];
    stream.on('text', (text: string) => deltas.push(text));
    const error = await stream.finalMessage().catch((e: unknown) => e);
    expect(deltas).toEqual(['Hel']);
    expect(error).toBeInstanceOf(AnthropicBedrock.APIError);
    expect(error).toMatchObject({ error: { type: 'error', error: { type, message: expect.stringMatching(said) } } });
    expect((error as Error).message).toMatch(said);
  });

  it.each([
    ['vertex', 'overloaded_error'],
    ['bedrock', 'serviceUnavailableException'],
  ] as const)('%s: a stream the upstream fails part-way raises the SDK\'s APIError (%s, the upstream\'s message)', async (cloud, type) => {
    const sdk = cloud === 'vertex' ? vertex() : bedrock();
    const error = await sdk.messages.stream({ model: 'busy/claude-x', max_tokens: 64, messages: ASK }).finalMessage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf((cloud === 'vertex' ? AnthropicVertex : AnthropicBedrock).APIError);
    expect(error).toMatchObject({ error: { type: 'error', error: { type, message: expect.stringMatching(/overloaded/i) } } });
  });

  it('Bedrock with AWS access keys: the key as the access key id signs in (SigV4, any secret); an unknown key id is the SDK\'s AuthenticationError (401)', async () => {
    const signing = (awsAccessKey: string) => new AnthropicBedrock({ baseURL: gw.url, awsRegion: 'us-east-1', apiKey: null, awsAccessKey, awsSecretKey: 'x', maxRetries: 0, fetch: recording });
    expect(textOf(await signing(gw.key!).messages.create({ model: MODELS.bedrock[0][0], max_tokens: 16, messages: ASK }))).toBe('Hi from Claude.');
    expect(textOf(await signing(gw.key!).messages.stream({ model: MODELS.bedrock[1][0], max_tokens: 16, messages: ASK }).finalMessage())).toBe('Hi from Chat.');
    const error = await signing('sk-not-a-key').messages.create({ model: MODELS.bedrock[0][0], max_tokens: 16, messages: ASK }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnthropicBedrock.AuthenticationError);
    expect(error).toMatchObject({ status: 401, error: { error: { type: 'authentication_error', message: expect.stringMatching(/invalid, expired or revoked/) } } });
  });

  it.each([
    ['the gateway with /v1', '/v1', 'us-east5'],
    ['the gateway root, global location', '', 'global'],
    ['the gateway with /v1beta1, multi-region us', '/v1beta1', 'us'],
  ])('Vertex with its base URL at %s: the SDK asks /projects/…/locations/{region}/…, served', async (_name, prefix, region) => {
    asked.length = 0;
    const sdk = vertex({ baseURL: `${gw.url}${prefix}`, region });
    expect(textOf(await sdk.messages.create({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, messages: ASK }))).toBe('Hi from Claude.');
    expect(textOf(await sdk.messages.stream({ model: 'oc/gpt-4o-mini', max_tokens: 64, messages: ASK }).finalMessage())).toBe('Hi from Chat.');
    const counted = await sdk.messages.countTokens({ model: 'claude-sonnet-4-5@20250929', messages: ASK });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const models = `${prefix}/projects/my-project/locations/${region}/publishers/anthropic/models`;
    expect(asked).toEqual([`${models}/claude-sonnet-4-5@20250929:rawPredict`, `${models}/oc%2Fgpt-4o-mini:streamRawPredict`, `${models}/count-tokens:rawPredict`]);
  });

  it('Vertex messages.countTokens counts as /v1/messages/count_tokens does, tools included', async () => {
    const body = { model: 'claude-sonnet-4-5@20250929', tools: [LOOKUP], messages: [{ role: 'user' as const, content: 'Weather in Paris? Answer in one word.' }] };
    const counted = await vertex().messages.countTokens(body);
    expect(counted.input_tokens).toBe(await directCount({ ...body, model: 'ant/claude-sonnet-4-5' }));
    expect(await vertex().messages.countTokens({ ...body, model: 'oc/gpt-4o-mini' })).toEqual({ input_tokens: await directCount({ ...body, model: 'oc/gpt-4o-mini' }) });
  });

  // With its default request handler (NodeHttp2Handler: HTTP/2 with prior knowledge to an http:// endpoint, test/e2e/h2c.test.ts); the HTTP/1.1 handler, an option of the client, works too.
  describe("the AWS SDK's BedrockRuntimeClient (a Bedrock API key as its token)", () => {
    const runtime = (key = gw.key, http1 = false) =>
      new aws.BedrockRuntimeClient({ region: 'us-east-1', endpoint: gw.url, token: { token: key }, authSchemePreference: ['httpBearerAuth'], maxAttempts: 1, ...(http1 ? { requestHandler: new NodeHttpHandler() } : {}) });
    const invokeBody = (body: Json) => new TextEncoder().encode(JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 256, ...body }));

    it.each([
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'ant/claude-sonnet-4-5'],
      ['oc/gpt-4o-mini', 'oc/gpt-4o-mini'],
    ])('CountTokens on %s (the InvokeModel body in base64) answers inputTokens, as /v1/messages/count_tokens counts it', async (modelId, gatewayId) => {
      const request = { tools: [LOOKUP], messages: [{ role: 'user', content: 'Weather in Paris? Answer in one word.' }] };
      const answer = await runtime().send(new aws.CountTokensCommand({ modelId, input: { invokeModel: { body: invokeBody(request) } } }));
      expect(answer.inputTokens).toBe(await directCount({ ...request, model: gatewayId }));
      // The AWS SDKs read the request id from x-amzn-requestid.
      expect(answer.$metadata.requestId).toMatch(/^req_/);
    });

    it('InvokeModel answers the Messages body, as Bedrock does, with the key as its token or as its access key id (SigV4), on HTTP/2 (its default handler) and HTTP/1.1', async () => {
      const signing = (http1: boolean) =>
        new aws.BedrockRuntimeClient({ region: 'us-east-1', endpoint: gw.url, credentials: { accessKeyId: gw.key, secretAccessKey: 'x' }, maxAttempts: 1, ...(http1 ? { requestHandler: new NodeHttpHandler() } : {}) });
      for (const client of [runtime(), runtime(gw.key, true), signing(false), signing(true)]) {
        const answer = await client.send(new aws.InvokeModelCommand({ modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0', contentType: 'application/json', body: invokeBody({ messages: ASK }) }));
        expect(textOf(JSON.parse(new TextDecoder().decode(answer.body)))).toBe('Hi from Claude.');
        expect(answer.$metadata.requestId).toMatch(/^req_/);
      }
    });

    it('CountTokens with a wrong key fails 401, an unknown model 404', async () => {
      const count = (client: any, modelId: string) =>
        client.send(new aws.CountTokensCommand({ modelId, input: { invokeModel: { body: invokeBody({ messages: ASK }) } } })).catch((error: unknown) => error);
      expect(await count(runtime('sk-not-a-key'), 'anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({ $metadata: { httpStatusCode: 401, requestId: expect.stringMatching(/^req_/) } });
      expect(await count(runtime(), 'anthropic.claude-nothing-9-v1:0')).toMatchObject({ $metadata: { httpStatusCode: 404 } });
    });

    it("InvokeModel's and CountTokens' errors are the AWS SDK's own exception classes with the gateway's message (before: UnknownError)", async () => {
      const invoke = (client: any, modelId: string, body = invokeBody({ messages: ASK })) =>
        client.send(new aws.InvokeModelCommand({ modelId, contentType: 'application/json', body })).catch((error: unknown) => error);
      const missing = await invoke(runtime(), 'anthropic.claude-nothing-9-v1:0');
      expect(missing).toBeInstanceOf(aws.ResourceNotFoundException);
      expect(missing).toMatchObject({ name: 'ResourceNotFoundException', message: expect.stringContaining('claude-nothing'), $metadata: { httpStatusCode: 404 } });
      const denied = await invoke(runtime('sk-not-a-key', true), 'anthropic.claude-sonnet-4-5-20250929-v1:0');
      expect(denied).toBeInstanceOf(aws.AccessDeniedException);
      expect(denied.message).not.toBe('UnknownError');
      const invalid = await invoke(runtime(), 'anthropic.claude-sonnet-4-5-20250929-v1:0', new TextEncoder().encode('{"messages": 5'));
      expect(invalid).toBeInstanceOf(aws.ValidationException);
      const counted = await runtime().send(new aws.CountTokensCommand({ modelId: 'anthropic.claude-nothing-9-v1:0', input: { invokeModel: { body: invokeBody({ messages: ASK }) } } })).catch((error: unknown) => error);
      expect(counted).toBeInstanceOf(aws.ResourceNotFoundException);
      expect(counted.message).toContain('claude-nothing');
    });

    // No provider uses the bedrock plugin here, so Converse's routes do not exist: the 404 still names its exception for the AWS SDK.
    it("Converse and ConverseStream with no bedrock provider are the SDK's ResourceNotFoundException with the gateway's words (before: UnknownError)", async () => {
      for (const command of [aws.ConverseCommand, aws.ConverseStreamCommand]) {
        const missing = await runtime().send(new command({ modelId: 'oc/gpt-4o-mini', messages: [{ role: 'user', content: [{ text: 'Say hi' }] }] })).catch((error: unknown) => error);
        expect(missing).toBeInstanceOf(aws.ResourceNotFoundException);
        expect(missing).toMatchObject({ message: expect.stringContaining('add a provider with plugin "bedrock"'), $metadata: { httpStatusCode: 404, requestId: expect.stringMatching(/^req_/) } });
      }
    });

    // The gateway serves no other Bedrock-runtime operation: each is the 404 the SDK names, not UnknownError; a typo under /model/ too.
    it("ApplyGuardrail, the async invokes and a typo under /model/ are the SDK's ResourceNotFoundException (before: UnknownError)", async () => {
      const commands = [
        new aws.ApplyGuardrailCommand({ guardrailIdentifier: 'gr1', guardrailVersion: '1', source: 'INPUT', content: [{ text: { text: 'hi' } }] }),
        new aws.StartAsyncInvokeCommand({ modelId: 'oc/gpt-4o-mini', modelInput: {}, outputDataConfig: { s3OutputDataConfig: { s3Uri: 's3://b/o' } } }),
        new aws.GetAsyncInvokeCommand({ invocationArn: 'arn1' }),
      ];
      for (const command of commands) {
        const missing = await runtime().send(command as never).catch((error: unknown) => error);
        expect(missing).toBeInstanceOf(aws.ResourceNotFoundException);
        expect(missing).toMatchObject({ message: expect.stringContaining('No route for'), $metadata: { httpStatusCode: 404, requestId: expect.stringMatching(/^req_/) } });
      }
      const typo = await fetch(`${gw.url}/model/oc%2Fgpt-4o-mini/invok`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: '{}' });
      expect(typo.status).toBe(404);
      expect(typo.headers.get('x-amzn-errortype')).toBe('ResourceNotFoundException');
      expect(await typo.json()).toMatchObject({ message: 'No route for POST /model/oc%2Fgpt-4o-mini/invok.', error: { code: 'not_found' } });
    });

    // InvokeModelWithResponseStream's event union: chunk and six exceptions, each its own class (any other name is a bare Error).
    it.each(FAULT_CASES)('InvokeModelWithResponseStream on faulty/%s, failing after its first text: the chunks, then the SDK raises %s', async (model, exception, said) => {
      for (const client of [runtime(), runtime(gw.key, true)]) {
        const answer = await client.send(new aws.InvokeModelWithResponseStreamCommand({ modelId: `faulty/${model}`, contentType: 'application/json', body: invokeBody({ messages: ASK }) }));
        const events: Json[] = [];
        const error = await (async () => {
          for await (const event of answer.body) events.push(JSON.parse(new TextDecoder().decode(event.chunk.bytes)));
        })().catch((e: unknown) => e);
        expect(events.map((e) => e.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
        expect(error).toBeInstanceOf(aws[exception]);
        expect(error).toMatchObject({ name: exception, message: expect.stringMatching(said) });
      }
    });
  });
});
