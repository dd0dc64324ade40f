/**
 * The framework clients LangChain and AI SDK users reach Bedrock and Vertex with, unmodified
 * (pinned in test/clients), pointed at the real gateway: LangChain's `ChatBedrockConverse`
 * (@langchain/aws, Converse and ConverseStream through the AWS SDK), the AI SDK's Amazon Bedrock
 * provider (@ai-sdk/amazon-bedrock, Converse over fetch) and its Google Vertex provider
 * (@ai-sdk/google-vertex, Vertex's generateContent paths). Each on a model passed through to a
 * strict fake of its own cloud's wire (Bedrock's Converse, the Gemini API) and on a Chat model (a
 * conversion): text, a stream, a tool call (streamed too) and the answer to its result, an unknown model
 * as each client's own error. The key goes as each
 * client sends a credential: a Bedrock API key (Bearer) or an AWS access key id (SigV4, any secret),
 * an OAuth access token (google-auth-library holding it, nothing asks Google) or a Vertex express
 * API key (`x-goog-api-key`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { clientModule, ensureTestClients } from '../helpers/test-clients.ts';

type Json = Record<string, any>;
const LLAMA = 'meta.llama3-3-70b-instruct-v1:0';
const BEDROCK_API_KEY = 'ABSKZmFrZWJlZHJvY2thcGlrZXk=';
const pick = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);

describe("LangChain's ChatBedrockConverse and the AI SDK's Bedrock and Vertex providers through the gateway", () => {
  let bedrock: FakeBedrock;
  let gemini: GeminiFake;
  let chat: StrictFake;
  let gw: SpawnedGateway;
  let ai: any;
  let z: any;
  let ChatBedrockConverse: any;
  let BedrockRuntimeClient: any;
  let createAmazonBedrock: any;
  let createVertex: any;
  let OAuth2Client: any;
  /** The URLs and credential headers the AI SDK's providers sent (their `fetch` option). */
  const sent: Array<{ url: string; authorization: string | null; apiKey: string | null }> = [];
  const recording: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({ url: String(input instanceof Request ? input.url : input), authorization: headers.get('authorization'), apiKey: headers.get('x-goog-api-key') });
    return fetch(input, init);
  };

  beforeAll(async () => {
    await ensureTestClients();
    bedrock = await startFakeBedrock({ region: 'us-east-1', apiKeys: [BEDROCK_API_KEY] });
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, apiKey: 'goog-upstream-key', pick: (names) => { const call = pick(names); return call && [{ name: call.name, args: call.input }]; }, finalText: 'Hello from Gemini.' });
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick, finalText: 'Sunny in Paris.' });
    gw = await spawnGateway({
      config: {
        providers: {
          bedrock: { plugin: 'bedrock', baseURL: bedrock.url, region: 'us-east-1', apiKey: BEDROCK_API_KEY, models: [LLAMA] },
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
        },
      },
    });
    ai = await clientModule('ai');
    z = await clientModule('zod');
    ({ ChatBedrockConverse } = await clientModule('@langchain/aws'));
    ({ BedrockRuntimeClient } = await clientModule('@aws-sdk/client-bedrock-runtime'));
    ({ createAmazonBedrock } = await clientModule('@ai-sdk/amazon-bedrock'));
    ({ createVertex } = await clientModule('@ai-sdk/google-vertex'));
    ({ OAuth2Client } = await clientModule('google-auth-library'));
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [bedrock, gemini, chat]) await fake?.close();
  });

  const rejections = () => [...bedrock.rejections, ...gemini.rejections, ...chat.rejections];
  const lookup = () => ai.tool({ description: 'Weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }: { city: string }) => `18°C in ${city}` });

  // [model id as the client names it, what its upstream says, what it says after a tool result]
  const BEDROCK_MODELS: Array<[string, string, string]> = [
    [`bedrock/${LLAMA}`, 'Converse heard: Say hi', 'Both cities are sunny.'],
    ['oc/gpt-4o-mini', 'Sunny in Paris.', 'Sunny in Paris.'],
  ];

  describe('LangChain ChatBedrockConverse', () => {
    // The endpoint as a user sets it for the AWS SDK under LangChain: AWS_ENDPOINT_URL_BEDROCK_RUNTIME, read when a
    // request resolves its endpoint (`endpointHost` is HTTPS only; `clientOptions.endpoint` is overwritten by it).
    let saved: string | undefined;
    beforeAll(() => {
      saved = process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME;
      process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME = gw.url;
    });
    afterAll(() => {
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME;
      else process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME = saved;
    });
    /** The gateway key as its Bedrock API key (`bedrockBearerToken`), or as the AWS access key id it signs with (any secret). */
    const converse = (model: string, auth: 'bearer' | 'sigv4' = 'bearer') =>
      new ChatBedrockConverse({ model, region: 'us-east-1', maxTokens: 256, maxRetries: 0, ...(auth === 'bearer' ? { bedrockBearerToken: gw.key } : { credentials: { accessKeyId: gw.key, secretAccessKey: 'any' } }) });

    it.each(BEDROCK_MODELS)('%s: invoke with usage, then a stream', async (model, said) => {
      const llm = converse(model);
      const answer = await llm.invoke('Say hi');
      expect(answer.content).toBe(said);
      expect(answer.usage_metadata).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
      expect(answer.usage_metadata.output_tokens).toBeGreaterThan(0);
      let streamed = '';
      for await (const chunk of await llm.stream('Say hi')) streamed += typeof chunk.content === 'string' ? chunk.content : '';
      expect(streamed).toBe(said);
      expect(rejections()).toEqual([]);
    });

    it.each(BEDROCK_MODELS)('%s: a tool call, then the answer to its result (signed with the key as the access key id)', async (model, _said, after) => {
      const llm = converse(model, 'sigv4').bindTools([{ name: 'lookup', description: 'Weather of a city', schema: z.object({ city: z.string() }) }]);
      const ask = { role: 'user', content: 'Weather in Paris?' };
      const called = await llm.invoke([ask]);
      expect(called.tool_calls).toMatchObject([{ name: 'lookup', args: { city: 'Paris' }, id: expect.any(String) }]);
      const answer = await llm.invoke([ask, called, { role: 'tool', content: '18°C in Paris', tool_call_id: called.tool_calls[0].id }]);
      expect(answer.content).toBe(after);
      expect(rejections()).toEqual([]);
    });

    it.each(BEDROCK_MODELS)('%s: a tool call streamed (ConverseStream), its chunks joined', async (model) => {
      const llm = converse(model).bindTools([{ name: 'lookup', description: 'Weather of a city', schema: z.object({ city: z.string() }) }]);
      let joined: any;
      for await (const chunk of await llm.stream('Weather in Paris?')) joined = joined ? joined.concat(chunk) : chunk;
      expect(joined.tool_calls).toMatchObject([{ name: 'lookup', args: { city: 'Paris' } }]);
      expect(rejections()).toEqual([]);
    });

    it('an unknown model is an error naming it', async () => {
      const failed = await converse('nope/missing').invoke('Say hi').then(() => undefined, (error: Json) => error);
      expect(failed).toMatchObject({ name: 'ResourceNotFoundException', message: expect.stringContaining('nope/missing') });
    });
  });

  describe("the AI SDK's Amazon Bedrock provider", () => {
    /** Its base URL the gateway's host; the key as its Bedrock API key (`apiKey`) or as the access key id it signs with. */
    const provider = (auth: 'bearer' | 'sigv4') =>
      createAmazonBedrock({ baseURL: gw.url, region: 'us-east-1', fetch: recording, ...(auth === 'bearer' ? { apiKey: gw.key } : { accessKeyId: gw.key, secretAccessKey: 'any' }) });

    it.each(BEDROCK_MODELS)('%s: generateText, then streamText', async (model, said) => {
      const bedrockAi = provider('bearer');
      const answer = await ai.generateText({ model: bedrockAi(model), prompt: 'Say hi', maxRetries: 0 });
      expect(answer.text).toBe(said);
      expect(answer.finishReason).toBe('stop');
      expect(answer.usage.outputTokens).toBeGreaterThan(0);
      const stream = ai.streamText({ model: bedrockAi(model), prompt: 'Say hi', maxRetries: 0, onError: () => {} });
      expect(await stream.text).toBe(said);
      expect((await stream.usage).outputTokens).toBeGreaterThan(0);
      expect(rejections()).toEqual([]);
      expect(sent.at(-1)!.authorization).toBe(`Bearer ${gw.key}`);
    });

    it.each(BEDROCK_MODELS)('%s: a tool loop of two steps, SigV4-signed with the key as the access key id', async (model, _said, after) => {
      const bedrockAi = provider('sigv4');
      const result = await ai.generateText({ model: bedrockAi(model), prompt: 'Weather in Paris?', tools: { lookup: lookup() }, stopWhen: ai.stepCountIs(2), maxRetries: 0 });
      expect(result.steps).toHaveLength(2);
      expect(result.steps[0].toolCalls).toMatchObject([{ toolName: 'lookup', input: { city: 'Paris' } }]);
      expect(result.text).toBe(after);
      const streamed = ai.streamText({ model: bedrockAi(model), prompt: 'Weather in Paris?', tools: { lookup: lookup() }, stopWhen: ai.stepCountIs(2), maxRetries: 0, onError: () => {} });
      expect(await streamed.text).toBe(after);
      expect(await streamed.steps).toHaveLength(2);
      expect(rejections()).toEqual([]);
      expect(sent.at(-1)!.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${gw.key}/\\d{8}/us-east-1/bedrock/aws4_request`));
    });

    it("an unknown model is the AI SDK's APICallError with Bedrock's 404, naming it", async () => {
      const failed = await ai.generateText({ model: provider('bearer')('nope/missing'), prompt: 'Say hi', maxRetries: 0 }).then(() => undefined, (error: Json) => error);
      expect(failed).toMatchObject({ statusCode: 404, message: expect.stringContaining('nope/missing') });
    });
  });

  describe("the AI SDK's Google Vertex provider", () => {
    /** An OAuth2Client whose access token is the gateway key: `Authorization: Bearer <key>`, no refresh, no network. */
    const tokenClient = () => {
      const client = new OAuth2Client();
      client.setCredentials({ access_token: gw.key });
      return client;
    };
    // [how it authenticates, a provider so set up, the path it asks before the model id (a gateway id holding a slash goes without models/)]
    const SETUPS: Array<[string, () => any, string]> = [
      ['OAuth (google-auth-library)', () => createVertex({ project: 'my-project', location: 'us-central1', baseURL: `${gw.url}/v1beta1/projects/my-project/locations/us-central1/publishers/google`, googleAuthOptions: { authClient: tokenClient() }, fetch: recording }), '/v1beta1/projects/my-project/locations/us-central1/publishers/google/'],
      ['an express-mode API key', () => createVertex({ apiKey: gw.key, baseURL: `${gw.url}/v1/publishers/google`, fetch: recording }), '/v1/publishers/google/'],
    ];
    const VERTEX_MODELS: Array<[string, string]> = [
      ['google/gemini-2.5-flash', 'Hello from Gemini.'],
      ['oc/gpt-4o-mini', 'Sunny in Paris.'],
    ];

    describe.each(SETUPS)('with %s', (auth, setup, prefix) => {
      it.each(VERTEX_MODELS)('%s: generateText, then streamText', async (model, said) => {
        const vertex = setup();
        const answer = await ai.generateText({ model: vertex(model), prompt: 'Say hi', maxRetries: 0 });
        expect(answer.text).toBe(said);
        expect(answer.usage.outputTokens).toBeGreaterThan(0);
        const stream = ai.streamText({ model: vertex(model), prompt: 'Say hi', maxRetries: 0, onError: () => {} });
        expect(await stream.text).toBe(said);
        expect((await stream.usage).outputTokens).toBeGreaterThan(0);
        expect(rejections()).toEqual([]);
        const last = sent.at(-1)!;
        expect(new URL(last.url).pathname).toBe(`${prefix}${model}:streamGenerateContent`);
        // OAuth: the token as `Authorization: Bearer`; express mode: the API key as `x-goog-api-key`.
        expect(last.apiKey ?? last.authorization).toBe(auth.startsWith('OAuth') ? `Bearer ${gw.key}` : gw.key);
      });
    });

    it('a tool loop of two steps (OAuth)', async () => {
      const vertex = SETUPS[0][1]();
      const result = await ai.generateText({ model: vertex('oc/gpt-4o-mini'), prompt: 'Weather in Paris?', tools: { lookup: lookup() }, stopWhen: ai.stepCountIs(2), maxRetries: 0 });
      expect(result.steps).toHaveLength(2);
      expect(result.text).toBe('Sunny in Paris.');
      expect(rejections()).toEqual([]);
    });

    it('a streamed tool loop of two steps on the Gemini model (passthrough, express mode)', async () => {
      const vertex = SETUPS[1][1]();
      const result = ai.streamText({ model: vertex('google/gemini-2.5-flash'), prompt: 'Weather in Paris?', tools: { lookup: lookup() }, stopWhen: ai.stepCountIs(2), maxRetries: 0, onError: () => {} });
      expect(await result.text).toBe('Hello from Gemini.');
      const steps = await result.steps;
      expect(steps).toHaveLength(2);
      expect(steps[0].toolCalls).toMatchObject([{ toolName: 'lookup', input: { city: 'Paris' } }]);
      expect(rejections()).toEqual([]);
    });

    it("an unknown model is the AI SDK's APICallError with Google's 404", async () => {
      const failed = await ai.generateText({ model: SETUPS[0][1]()('nope/missing'), prompt: 'Say hi', maxRetries: 0 }).then(() => undefined, (error: Json) => error);
      expect(failed).toMatchObject({ statusCode: 404, message: expect.stringContaining('nope/missing') });
    });
  });
});
