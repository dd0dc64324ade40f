/**
 * The Messages face on the clouds' paths, on the wire: Claude on Vertex AI (`:rawPredict`,
 * `:streamRawPredict`, `count-tokens:rawPredict`) and Bedrock's InvokeModel (`/invoke`,
 * `/invoke-with-response-stream` in AWS's binary event-stream). A Messages upstream gets the body
 * as `/v1/messages` takes it (the model the gateway serves for the cloud's id, no `anthropic_version`);
 * a Chat upstream gets it converted; failures come in Anthropic's envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { startOverloadedMessagesFake, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { decodeWire } from '../formats/messages/event-stream-wire.ts';

type Json = Record<string, any>;

const VERTEX = '/v1/projects/my-project/locations/us-east5/publishers/anthropic/models';
const ask = { max_tokens: 256, messages: [{ role: 'user', content: 'Say hi' }] };

describe('Claude on Vertex and Bedrock paths, served by the Messages face', () => {
  let chat: StrictFake;
  let messages: StrictFake;
  let failing: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, finalText: 'Hi from Chat.' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } }, finalText: 'Hi from Claude.' });
    // An Anthropic upstream overloaded after its first event.
    failing = await startOverloadedMessagesFake();
    gw = await spawnGateway({
      config: {
        providers: {
          // A provider named `anthropic`: Gemini's Vertex path for it (`publishers/anthropic/models/{m}:generateContent`) stays Gemini's.
          anthropic: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          busy: { plugin: 'anthropic', baseURL: failing.url, apiKey: 'x', models: ['claude-x'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages, failing]) await fake?.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${gw.key}` }) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const textOf = (answer: Json) => answer.content.filter((b: Json) => b.type === 'text').map((b: Json) => b.text).join('');

  it("Vertex rawPredict: a Vertex id reaches the Anthropic upstream as the model the gateway serves, without Vertex's anthropic_version", async () => {
    messages.requests.length = 0;
    const res = await post(`${VERTEX}/claude-sonnet-4-5@20250929:rawPredict`, { anthropic_version: 'vertex-2023-10-16', ...ask });
    const answer = (await res.json()) as Json;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(textOf(answer)).toBe('Hi from Claude.');
    expect(messages.rejections).toEqual([]);
    const sent = messages.requests[0];
    expect(sent.path).toBe('/v1/messages');
    expect(sent.json).toMatchObject({ model: 'claude-sonnet-4-5', stream: false, max_tokens: 256 });
    expect((sent.json as Json).anthropic_version).toBeUndefined();
  });

  it('Vertex streamRawPredict: SSE, Messages events; a gateway id in the path serves a Chat model, converted', async () => {
    const res = await post(`${VERTEX}/anthropic/gpt-4o-mini:streamRawPredict`, { anthropic_version: 'vertex-2023-10-16', ...ask, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    expect(text).toContain('event: message_start');
    expect(text).toContain('Hi from Chat.');
    expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
    expect(chat.rejections).toEqual([]);
  });

  it('Vertex count-tokens:rawPredict counts the body\'s model, as /v1/messages/count_tokens does', async () => {
    const res = await post(`${VERTEX}/count-tokens:rawPredict`, { anthropic_version: 'vertex-2023-10-16', model: 'claude-sonnet-4-5@20250929', messages: ask.messages });
    const answer = (await res.json()) as Json;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.input_tokens).toBeGreaterThan(0);
  });

  it("Gemini's Vertex paths around Claude's stay Gemini's: publishers/anthropic with generateContent is the provider named anthropic", async () => {
    const res = await post(`/v1/projects/p/locations/us-east5/publishers/anthropic/models/gpt-4o-mini:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }] });
    const answer = (await res.json()) as Json;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.candidates[0].content.parts[0].text).toBe('Hi from Chat.');
  });

  it('Bedrock invoke: an encoded ARN of an inference profile, the body as Bedrock takes it (anthropic_beta as the header), JSON back', async () => {
    messages.requests.length = 0;
    const arn = encodeURIComponent('arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    const res = await post(`/model/${arn}/invoke`, { anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['interleaved-thinking-2025-05-14'], ...ask });
    const answer = (await res.json()) as Json;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(textOf(answer)).toBe('Hi from Claude.');
    const sent = messages.requests[0];
    expect(sent.json).toMatchObject({ model: 'claude-sonnet-4-5', stream: false });
    expect(Object.keys(sent.json as Json)).not.toContain('anthropic_beta');
    expect(sent.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
  });

  it.each([
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'Hi from Claude.'],
    [encodeURIComponent('anthropic/gpt-4o-mini'), 'Hi from Chat.'],
  ])('Bedrock invoke-with-response-stream on %s: chunk events in AWS event-stream, each a Messages event in base64', async (model, said) => {
    const res = await post(`/model/${model}/invoke-with-response-stream`, { anthropic_version: 'bedrock-2023-05-31', ...ask });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const frames = decodeWire(Buffer.from(await res.arrayBuffer()));
    const events = frames.map((f) => {
      expect(f.headers).toMatchObject({ ':event-type': 'chunk', ':message-type': 'event' });
      return JSON.parse(Buffer.from((JSON.parse(f.payload) as { bytes: string }).bytes, 'base64').toString('utf8')) as Json;
    });
    expect(events[0].type).toBe('message_start');
    expect(events.at(-1)!.type).toBe('message_stop');
    expect(events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta.text).join('')).toBe(said);
  });

  it("Bedrock stream that fails part-way ends in Bedrock's exception (what every Bedrock SDK raises), its message the upstream's", async () => {
    const res = await post('/model/busy%2Fclaude-x/invoke-with-response-stream', { anthropic_version: 'bedrock-2023-05-31', ...ask });
    expect(res.status).toBe(200);
    const frames = decodeWire(Buffer.from(await res.arrayBuffer()));
    expect(frames[0].headers[':event-type']).toBe('chunk');
    const last = frames.at(-1)!;
    expect(last.headers).toMatchObject({ ':message-type': 'exception', ':exception-type': 'serviceUnavailableException' });
    expect(JSON.parse(last.payload)).toMatchObject({ message: expect.stringMatching(/overloaded/i), error_event: { type: 'error', error: { type: 'overloaded_error' } } });
  });

  it.each([
    ['Vertex', `${VERTEX}/claude-sonnet-4-5@20250929:rawPredict`],
    ['Bedrock', '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke'],
  ])("%s: no key is a 401, an unknown model a 404, both in Anthropic's envelope", async (_cloud, path) => {
    const anonymous = await post(path, { anthropic_version: 'x', ...ask }, {});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const unknown = await post(path.replace('claude-sonnet-4-5', 'claude-nothing-9'), { anthropic_version: 'x', ...ask });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('Bedrock CountTokens: the InvokeModel body in base64 under input.invokeModel, {inputTokens} back; a Converse input without the bedrock plugin or a body not JSON is a 400', async () => {
    const path = '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens';
    const wrapped = (body: unknown) => ({ input: { invokeModel: { body: Buffer.from(JSON.stringify(body)).toString('base64') } } });
    const res = await post(path, wrapped({ anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['interleaved-thinking-2025-05-14'], ...ask }));
    const answer = (await res.json()) as Json;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(Object.keys(answer)).toEqual(['inputTokens']);
    expect(answer.inputTokens).toBeGreaterThan(0);
    const converse = await post(path, { input: { converse: { messages: [{ role: 'user', content: [{ text: 'Say hi' }] }] } } });
    expect(converse.status).toBe(400);
    // No provider here uses the bedrock plugin, whose Converse format counts it (bedrock-aws-sdk.test.ts).
    expect(await converse.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/^input\.converse: .*once a provider uses the bedrock plugin/) } });
    const notJson = await post(path, { input: { invokeModel: { body: Buffer.from('not json').toString('base64') } } });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { message: expect.stringMatching(/input\.invokeModel\.body/) } });
  });

  it('an anthropic_beta that cannot be a header value is a 400, never sent: it must not open the model\'s circuit for everyone', async () => {
    messages.requests.length = 0;
    const path = '/model/ant%2Fclaude-sonnet-4-5/invoke';
    for (const beta of ['a\nb', 'x\u0000y', 'b\u00e9ta']) {
      for (let i = 0; i < 3; i += 1) {
        const res = await post(path, { anthropic_version: 'bedrock-2023-05-31', anthropic_beta: [beta], ...ask });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/anthropic_beta/) } });
      }
    }
    expect(messages.requests).toHaveLength(0);
    const served = await post(path, { anthropic_version: 'bedrock-2023-05-31', ...ask });
    expect(served.status, await served.clone().text()).toBe(200);
  });

  it('a body that is not a Messages body is a 400 in Anthropic\'s envelope', async () => {
    const res = await post('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke', { anthropic_version: 'bedrock-2023-05-31', anthropic_beta: 'not-a-list', ...ask });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/anthropic_beta/) } });
  });
});
