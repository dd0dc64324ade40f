/**
 * The AWS SDK's own BedrockRuntimeClient (@aws-sdk/client-bedrock-runtime, pinned in test/clients,
 * with its HTTP/1.1 handler, and once with its default HTTP/2 one) on the gateway's Converse route: `ConverseCommand` and
 * `ConverseStreamCommand` on a Llama model behind a strict Bedrock fake (a passthrough) and on a
 * Chat model (a conversion); a tool call and its result; streams read through the SDK's
 * event-stream parser to messageStop and metadata; failures, before and during a stream, as the
 * SDK's own exception classes. The key goes as the SDK's Bedrock API key (Bearer) or as its AWS
 * access key id (SigV4 with any secret: the signature is not checked, docs/formats.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Json = Record<string, any>;
const LLAMA = 'meta.llama3-3-70b-instruct-v1:0';
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const BEDROCK_API_KEY = 'ABSKZmFrZWJlZHJvY2thcGlrZXk=';
const LOOKUP = { toolSpec: { name: 'lookup', description: 'Weather of a city', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } };
const ASK = [{ role: 'user', content: [{ text: 'Say hi' }] }];

describe("the AWS SDK's BedrockRuntimeClient on the Converse route", () => {
  let bedrock: FakeBedrock;
  let chat: StrictFake;
  let stalling: FakeUpstream;
  let gemini: FakeUpstream;
  let gw: SpawnedGateway;
  let key: string;
  let aws: any;
  let NodeHttpHandler: any;

  beforeAll(async () => {
    await ensureTestClients();
    bedrock = await startFakeBedrock({ region: 'us-east-1', apiKeys: [BEDROCK_API_KEY] });
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick: (names) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined), finalText: 'Sunny in Paris.' });
    // A Chat upstream that sends one chunk, then nothing (the gateway's idle timeout ends the stream part-way), or for gpt-cut cuts the connection.
    stalling = await startFakeUpstream((request) => ({
      sse: chatSse([{ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-slow', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] }], false),
      // 20 ms before the cut, so the chunk reaches the client first.
      ...(request.json?.model === 'gpt-cut' ? { reset: true, delayMs: 20 } : { stall: true }),
    }));
    // A Gemini upstream whose stream sends one chunk, then Google's error element naming the HTTP status (`code`), as the
    // Gemini API ends a stream that failed after it began.
    gemini = await startFakeUpstream(() => ({
      sse: [
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }], modelVersion: 'gemini-broken' })}\r\n\r\n`,
        `data: ${JSON.stringify({ error: { code: 500, message: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting', status: 'INTERNAL' } })}\r\n\r\n`,
      ],
      delayMs: 20,
    }));
    gw = await spawnGateway({
      config: {
        providers: {
          bedrock: { plugin: 'bedrock', baseURL: bedrock.url, region: 'us-east-1', apiKey: BEDROCK_API_KEY, models: [LLAMA, CLAUDE] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          gem: { plugin: 'google', baseURL: gemini.url, apiKey: 'goog', models: ['gemini-broken'] },
          slow: { plugin: 'openai', baseURL: `${stalling.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-slow', 'gpt-cut'], timeouts: { idle: 300 } },
        },
      },
    });
    key = gw.key!;
    aws = await clientModule('@aws-sdk/client-bedrock-runtime');
    ({ NodeHttpHandler } = await clientModule('@smithy/node-http-handler'));
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [bedrock, chat, stalling, gemini]) await fake?.close();
  });

  /** The gateway key as the SDK's Bedrock API key (`Authorization: Bearer`). */
  const withToken = (token = key) =>
    new aws.BedrockRuntimeClient({ region: 'us-east-1', endpoint: gw.url, token: { token }, authSchemePreference: ['httpBearerAuth'], requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
  /** The gateway key as the SDK's AWS access key id: each request SigV4-signed with a secret the gateway never sees. */
  const signing = (accessKeyId = key) =>
    new aws.BedrockRuntimeClient({ region: 'us-east-1', endpoint: gw.url, credentials: { accessKeyId, secretAccessKey: 'x' }, requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
  const failure = (promise: Promise<unknown>): Promise<Json> => promise.then(() => ({}), (error: unknown) => error as Json);

  /** Every event of a ConverseStream, read through the SDK's parser. */
  async function events(output: Json): Promise<Json[]> {
    const all: Json[] = [];
    for await (const event of output.stream) all.push(event);
    return all;
  }
  const textOf = (all: Json[]) => all.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('');

  // [model id as the SDK names it, what its upstream says, the fake behind it]
  const MODELS: Array<[string, string, () => { rejections: string[] }]> = [
    [`bedrock/${LLAMA}`, 'Converse heard: Say hi', () => bedrock],
    ['oc/gpt-4o-mini', 'Sunny in Paris.', () => chat],
  ];

  it.each(MODELS)('Converse and ConverseStream on %s: the answer, then its stream to messageStop and metadata with usage', async (modelId, said, fakeOf) => {
    const answer = await withToken().send(new aws.ConverseCommand({ modelId, system: [{ text: 'Be brief.' }], inferenceConfig: { maxTokens: 256 }, messages: ASK }));
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.output.message).toEqual({ role: 'assistant', content: [{ text: said }] });
    expect(answer.usage.outputTokens).toBeGreaterThan(0);
    expect(answer.$metadata).toMatchObject({ httpStatusCode: 200, requestId: expect.stringMatching(/\S/) });
    const streamed = await events(await withToken().send(new aws.ConverseStreamCommand({ modelId, inferenceConfig: { maxTokens: 256 }, messages: ASK })));
    expect(streamed[0]).toEqual({ messageStart: { role: 'assistant' } });
    expect(textOf(streamed)).toBe(said);
    expect(streamed.at(-2)).toEqual({ messageStop: { stopReason: 'end_turn' } });
    expect(streamed.at(-1)!.metadata.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect(streamed.at(-1)!.metadata.usage.outputTokens).toBeGreaterThan(0);
    expect(fakeOf().rejections).toEqual([]);
  });

  it.each(MODELS)('a tool call on %s streamed (toolUse start and input deltas), then the answer to its toolResult', async (modelId, _said, fakeOf) => {
    const toolConfig = { tools: [LOOKUP] };
    const first = [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }];
    const streamed = await events(await withToken().send(new aws.ConverseStreamCommand({ modelId, toolConfig, messages: first })));
    const start = streamed.find((e) => e.contentBlockStart)!.contentBlockStart;
    expect(start.start.toolUse).toMatchObject({ toolUseId: expect.any(String), name: 'lookup' });
    const input = JSON.parse(streamed.filter((e) => e.contentBlockDelta?.contentBlockIndex === start.contentBlockIndex).map((e) => e.contentBlockDelta.delta.toolUse.input).join(''));
    expect(input).toEqual({ city: 'Paris' });
    expect(streamed.at(-2)).toEqual({ messageStop: { stopReason: 'tool_use' } });
    const { toolUseId } = start.start.toolUse;
    const answer = await withToken().send(
      new aws.ConverseCommand({
        modelId,
        toolConfig,
        messages: [
          ...first,
          { role: 'assistant', content: [{ toolUse: { toolUseId, name: 'lookup', input } }] },
          { role: 'user', content: [{ toolResult: { toolUseId, content: [{ json: { sky: 'sunny' } }, { text: '21 C' }], status: 'success' } }] },
        ],
      }),
    );
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.output.message.content[0].text).toMatch(/sunny/i);
    expect(fakeOf().rejections).toEqual([]);
  });

  it.each(MODELS)("CountTokens with input.converse on %s counts what input.invokeModel counts for the same conversation; a Converse body that is not one is the SDK's ValidationException", async (modelId) => {
    const count = async (input: Json) => (await withToken().send(new aws.CountTokensCommand({ modelId, input }))).inputTokens as number;
    const conversation = { system: [{ text: 'Be brief.' }], messages: [...ASK, { role: 'assistant', content: [{ text: 'Hi!' }] }, { role: 'user', content: [{ text: 'Weather in Paris?' }] }] };
    const converse = await count({ converse: { ...conversation, toolConfig: { tools: [LOOKUP] } } });
    // The tool is counted, the system prompt too.
    expect(await count({ converse: conversation })).toBeLessThan(converse);
    expect(await count({ converse: { messages: conversation.messages } })).toBeLessThan(await count({ converse: conversation }));
    const invoked = {
      anthropic_version: 'bedrock-2023-05-31',
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hi' }] }, { role: 'assistant', content: [{ type: 'text', text: 'Hi!' }] }, { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      tools: [{ name: 'lookup', description: 'Weather of a city', input_schema: LOOKUP.toolSpec.inputSchema.json }],
    };
    expect(converse).toBeGreaterThan(0);
    expect(converse).toBe(await count({ invokeModel: { body: new TextEncoder().encode(JSON.stringify(invoked)) } }));
    const invalid = await failure(withToken().send(new aws.CountTokensCommand({ modelId, input: { converse: { messages: [{ role: 'system', content: [{ text: 'hi' }] }] } } })));
    expect(invalid).toBeInstanceOf(aws.ValidationException);
    // The field as the CountTokens body has it, not as a Converse body would.
    expect(invalid.message).toBe("input.converse.messages[0].role: must be 'user' or 'assistant'");
    expect(invalid.error).toMatchObject({ param: 'input.converse.messages[0].role' });
    const noMessages = await failure(withToken().send(new aws.CountTokensCommand({ modelId, input: { converse: { system: [{ text: 'Be brief.' }] } } })));
    expect(noMessages.message).toBe('input.converse.messages: required, a list of messages');
  });

  it("failures are the SDK's own exception classes: unknown model, wrong key, invalid body", async () => {
    const unknown = await failure(withToken().send(new aws.ConverseCommand({ modelId: 'meta.llama-nothing-v1:0', messages: ASK })));
    expect(unknown).toBeInstanceOf(aws.ResourceNotFoundException);
    expect(unknown).toMatchObject({ name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 404, requestId: expect.stringMatching(/\S/) } });
    const wrongKey = await failure(withToken('sk-not-a-key').send(new aws.ConverseCommand({ modelId: MODELS[0][0], messages: ASK })));
    expect(wrongKey).toBeInstanceOf(aws.AccessDeniedException);
    expect(wrongKey).toMatchObject({ $metadata: { httpStatusCode: 401 } });
    const invalid = await failure(withToken().send(new aws.ConverseStreamCommand({ modelId: 'oc/gpt-4o-mini', messages: [{ role: 'system', content: [{ text: 'hi' }] }] })));
    expect(invalid).toBeInstanceOf(aws.ValidationException);
    expect(invalid.message).toMatch(/role/);
  });

  it("a stream that fails part-way raises the SDK's exception class: Bedrock's own throttle passed through, the gateway's idle timeout and a cut connection on a converted stream", async () => {
    bedrock.faults.exceptionAfter = { index: 2, name: 'throttlingException', message: 'Too many tokens, please wait.' };
    const throttled = await withToken().send(new aws.ConverseStreamCommand({ modelId: MODELS[0][0], messages: ASK }));
    const thrown = await failure(events(throttled));
    expect(thrown).toBeInstanceOf(aws.ThrottlingException);
    expect(thrown.message).toBe('Too many tokens, please wait.');
    // ConverseStream's exceptions are five (internalServer, modelStreamError, validation, throttling, serviceUnavailable): a timeout is
    // the stream's error, and so is the connection to the provider cut part-way (provider_error), as InvokeModelWithResponseStream ends it.
    for (const [model, said] of [['gpt-slow', /^The provider did not answer in time\.$/], ['gpt-cut', /connection to the provider failed/]] as const) {
      const answer = await withToken().send(new aws.ConverseStreamCommand({ modelId: `slow/${model}`, messages: ASK }));
      const read: Json[] = [];
      const failed = await failure((async () => {
        for await (const event of answer.stream) read.push(event);
      })());
      expect(textOf(read)).toBe('Hel');
      expect(failed).toBeInstanceOf(aws.ModelStreamErrorException);
      expect(failed.message).toMatch(said);
    }
  });

  // The upstream named the failure's status (Google's error element, `code: 500`): the SDK's ModelStreamErrorException has
  // it as originalStatusCode, with originalMessage, on ConverseStream and InvokeModelWithResponseStream alike (both converted).
  it("a stream that the upstream ends with an error naming its HTTP status raises ModelStreamErrorException with originalStatusCode and originalMessage", async () => {
    const said = /^An internal error has occurred\. Please retry/;
    const answer = await withToken().send(new aws.ConverseStreamCommand({ modelId: 'gem/gemini-broken', messages: ASK }));
    const read: Json[] = [];
    const failed = await failure((async () => {
      for await (const event of answer.stream) read.push(event);
    })());
    expect(textOf(read)).toBe('Hel');
    expect(failed).toBeInstanceOf(aws.ModelStreamErrorException);
    expect(failed).toMatchObject({ name: 'ModelStreamErrorException', originalStatusCode: 500, message: expect.stringMatching(said) });
    expect(failed.originalMessage).toBe(failed.message);

    const invoked = await withToken().send(
      new aws.InvokeModelWithResponseStreamCommand({ modelId: 'gem/gemini-broken', contentType: 'application/json', body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] }) }),
    );
    const chunks: Json[] = [];
    const thrown = await failure((async () => {
      for await (const event of invoked.body) chunks.push(JSON.parse(new TextDecoder().decode(event.chunk.bytes)));
    })());
    expect(chunks.filter((e) => e.type === 'content_block_delta').map((e) => e.delta.text).join('')).toBe('Hel');
    expect(thrown).toBeInstanceOf(aws.ModelStreamErrorException);
    expect(thrown).toMatchObject({ originalStatusCode: 500, message: expect.stringMatching(said) });
    expect(thrown.originalMessage).toBe(thrown.message);
  });

  // A Bedrock upstream's own ModelStreamErrorException on InvokeModelWithResponseStream (a Claude model, the bedrock plugin
  // calls InvokeModel) names the model's status: the client's ModelStreamErrorException names it too, on InvokeModel (the
  // stream passed through) and on ConverseStream (converted from it), as it does for a Converse upstream's.
  it("a Bedrock InvokeModel upstream's ModelStreamErrorException keeps its originalStatusCode: InvokeModelWithResponseStream passed through, ConverseStream converted", async () => {
    const said = 'The model stream failed.';
    const fail = () => (bedrock.faults.exceptionAfter = { index: 3, name: 'modelStreamErrorException', message: said, fields: { originalStatusCode: 500, originalMessage: 'Internal error from the model' } });
    fail();
    const invoked = await withToken().send(
      new aws.InvokeModelWithResponseStreamCommand({ modelId: `bedrock/${CLAUDE}`, contentType: 'application/json', body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] }) }),
    );
    const chunks: Json[] = [];
    const thrown = await failure((async () => {
      for await (const event of invoked.body) chunks.push(JSON.parse(new TextDecoder().decode(event.chunk.bytes)));
    })());
    expect(chunks.length).toBe(3);
    expect(thrown).toBeInstanceOf(aws.ModelStreamErrorException);
    expect(thrown).toMatchObject({ originalStatusCode: 500, message: said, originalMessage: said });

    fail();
    const answer = await withToken().send(new aws.ConverseStreamCommand({ modelId: `bedrock/${CLAUDE}`, messages: ASK }));
    const failed = await failure(events(answer));
    expect(failed).toBeInstanceOf(aws.ModelStreamErrorException);
    expect(failed).toMatchObject({ originalStatusCode: 500, message: said, originalMessage: said });
    expect(bedrock.rejections).toEqual([]);
  });

  describe('the key as the AWS access key id (SigV4, any secret)', () => {
    /** A key made while the gateway runs (`gateway keys create`), scoped by `flags`. */
    const scopedKey = async (...flags: string[]) => {
      const created = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'create', '--json', ...flags]);
      expect(String(created.stderr)).toBe('');
      return (JSON.parse(String(created.stdout)) as { key: string }).key;
    };

    it.each(MODELS)('Converse and ConverseStream on %s', async (modelId, said) => {
      const answer = await signing().send(new aws.ConverseCommand({ modelId, messages: ASK }));
      expect(answer.output.message.content).toEqual([{ text: said }]);
      expect(textOf(await events(await signing().send(new aws.ConverseStreamCommand({ modelId, messages: ASK }))))).toBe(said);
      // The upstream gets the provider's credential, never the client's signature.
      expect(bedrock.requests.every((r) => r.headers.authorization === `Bearer ${BEDROCK_API_KEY}`)).toBe(true);
    });

    it.each(MODELS)("the client's default request handler (HTTP/2 with prior knowledge): Converse and ConverseStream on %s", async (modelId, said) => {
      const http2 = new aws.BedrockRuntimeClient({ region: 'us-east-1', endpoint: gw.url, credentials: { accessKeyId: key, secretAccessKey: 'x' }, maxAttempts: 1 });
      expect((await http2.send(new aws.ConverseCommand({ modelId, messages: ASK }))).output.message.content).toEqual([{ text: said }]);
      const streamed = await events(await http2.send(new aws.ConverseStreamCommand({ modelId, messages: ASK })));
      expect(textOf(streamed)).toBe(said);
      expect(streamed.at(-1)!.metadata.usage.outputTokens).toBeGreaterThan(0);
      http2.destroy();
    });

    it("a key id the gateway does not know is the SDK's AccessDeniedException (401); a key's model scope holds as with Bearer (403); the key reaches no log", async () => {
      for (const [accessKeyId, message] of [
        ['sk-gw-not-a-key', 'The API key is invalid, expired or revoked.'],
        // The environment's AWS key, which the SDK signs with when given none: told that gateway keys are sk-gw-.
        ['AKIAIOSFODNN7EXAMPLE', expect.stringMatching(/^The API key is invalid, expired or revoked: gateway API keys start with sk-gw- \(.*AWS access key/)],
      ] as const) {
        const refused = await failure(signing(accessKeyId).send(new aws.ConverseCommand({ modelId: MODELS[0][0], messages: ASK })));
        expect(refused).toBeInstanceOf(aws.AccessDeniedException);
        expect(refused).toMatchObject({ $metadata: { httpStatusCode: 401 }, message });
        expect((refused as Error).message).not.toContain(accessKeyId);
      }
      const scoped = await scopedKey('--models', 'oc/*');
      expect((await signing(scoped).send(new aws.ConverseCommand({ modelId: 'oc/gpt-4o-mini', messages: ASK }))).stopReason).toBe('end_turn');
      const outside = await failure(signing(scoped).send(new aws.ConverseCommand({ modelId: MODELS[0][0], messages: ASK })));
      expect(outside).toBeInstanceOf(aws.AccessDeniedException);
      expect(outside).toMatchObject({ $metadata: { httpStatusCode: 403 }, message: expect.stringMatching(/may not use the model/) });
      expect(gw.stdout() + gw.stderr()).not.toContain(scoped);
    });

    it("a key scoped to the bedrock-converse endpoints calls Converse, not InvokeModel; one scoped to messages the other way round; CountTokens follows the body it counts", async () => {
      const converseOnly = await scopedKey('--endpoints', 'bedrock-converse');
      const messagesOnly = await scopedKey('--endpoints', 'messages');
      /** The answer or the exception. */
      const outcome = (promise: Promise<Json>) => promise.catch((error: unknown) => error as Json);
      const converse = (accessKeyId: string) => outcome(signing(accessKeyId).send(new aws.ConverseCommand({ modelId: 'oc/gpt-4o-mini', messages: ASK })));
      const invoke = (accessKeyId: string) =>
        outcome(signing(accessKeyId).send(new aws.InvokeModelCommand({ modelId: 'oc/gpt-4o-mini', body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] }) })));
      expect(await converse(converseOnly)).toMatchObject({ stopReason: 'end_turn' });
      // InvokeModel's errors are Anthropic's envelope (docs/formats.md): the AWS SDK reads only the status.
      expect(await invoke(converseOnly)).toMatchObject({ $metadata: { httpStatusCode: 403 } });
      expect(await invoke(messagesOnly)).toMatchObject({ $metadata: { httpStatusCode: 200 } });
      expect(await converse(messagesOnly)).toMatchObject({ $metadata: { httpStatusCode: 403 }, message: expect.stringMatching(/may not call the bedrock-converse endpoints/) });
      // CountTokens is the operation whose body it counts: input.converse Converse's, input.invokeModel InvokeModel's (docs/api-decisions.md).
      const invokeBody = new TextEncoder().encode(JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] }));
      const count = (accessKeyId: string, input: Json) => outcome(signing(accessKeyId).send(new aws.CountTokensCommand({ modelId: 'oc/gpt-4o-mini', input })));
      const counted = await count(converseOnly, { converse: { messages: ASK } });
      expect(counted).toMatchObject({ $metadata: { httpStatusCode: 200 }, inputTokens: expect.any(Number) });
      expect(counted.inputTokens).toBeGreaterThan(0);
      expect(await count(messagesOnly, { invokeModel: { body: invokeBody } })).toMatchObject({ $metadata: { httpStatusCode: 200 }, inputTokens: expect.any(Number) });
      const invokeByConverse = await count(converseOnly, { invokeModel: { body: invokeBody } });
      expect(invokeByConverse).toBeInstanceOf(aws.AccessDeniedException);
      expect(invokeByConverse).toMatchObject({ $metadata: { httpStatusCode: 403 }, message: expect.stringMatching(/may not call the messages endpoints/) });
      const converseByMessages = await count(messagesOnly, { converse: { messages: ASK } });
      expect(converseByMessages).toBeInstanceOf(aws.AccessDeniedException);
      expect(converseByMessages).toMatchObject({ $metadata: { httpStatusCode: 403 }, message: expect.stringMatching(/may not call the bedrock-converse endpoints/) });
    });
  });
});
