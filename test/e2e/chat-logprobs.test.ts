/**
 * A Chat client's `logprobs` on a model served over a Responses upstream (docs/formats.md, "Log
 * probabilities between Chat and Responses"): the openai SDK asks for them and reads
 * `choices[0].logprobs.content`, whole and streamed. The fake answers with OpenAI's recorded
 * answers (test/fixtures/responses/*logprobs*), and only when the request asked for them
 * (`include: ["message.output_text.logprobs"]`), as OpenAI does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { REPO_ROOT, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

const fixture = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures', name), 'utf8');
const TOKENS = (JSON.parse(fixture('chat/response-logprobs.json')) as Json).choices[0].logprobs.content as Json[];

describe("a Chat or Gemini client's logprobs over a Responses upstream", () => {
  let upstream: FakeUpstream;
  let anthropicFake: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let google: GoogleGenAI;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      const body = request.json as Json;
      if (!body.include?.includes('message.output_text.logprobs')) return { status: 400, json: { error: { message: 'this fake answers only requests asking for logprobs', type: 'invalid_request_error', param: 'include', code: null } } };
      if (body.stream) return { headers: { 'content-type': 'text/event-stream' }, sse: fixture('responses/logprobs.sse.txt').split(/(?<=\n\n)/) };
      return { json: JSON.parse(fixture('responses/response-logprobs.json')) };
    });
    anthropicFake = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, finalText: 'Hello!' });
    gw = await spawnGateway({
      config: {
        providers: {
          or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
          ant: { plugin: 'anthropic', baseURL: anthropicFake.url, apiKey: 'x', models: ['claude-up'] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
    google = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
    await anthropicFake?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('chat.completions.create: choices[0].logprobs.content', async () => {
    const done = await openai.chat.completions.create({ model: 'or/gpt-4.1', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true, top_logprobs: 2 });
    // Before: not asked of the upstream (this fake's 400), and choices[0].logprobs null.
    expect(done.choices[0].message.content).toBe('Hello!');
    expect(done.choices[0].logprobs?.content).toEqual(TOKENS);
    expect(upstream.requests[0].json).toMatchObject({ include: ['message.output_text.logprobs'], top_logprobs: 2 });
  });

  it('streamed: each content chunk with its tokens', async () => {
    const stream = await openai.chat.completions.create({ model: 'or/gpt-4.1', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true, top_logprobs: 2, stream: true });
    let text = '';
    const tokens: Json[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      tokens.push(...(chunk.choices[0]?.logprobs?.content ?? []));
    }
    expect(text).toBe('Hello!');
    expect(tokens).toEqual(TOKENS);
  });

  it("@google/genai's responseLogprobs: the candidate's logprobsResult", async () => {
    const answer = await google.models.generateContent({ model: 'or/gpt-4.1', contents: 'Say hello', config: { responseLogprobs: true, logprobs: 2 } });
    // Before: 400 "generationConfig.responseLogprobs has no equivalent in the upstream format".
    expect(answer.text).toBe('Hello!');
    expect(answer.candidates?.[0].logprobsResult?.chosenCandidates).toEqual(TOKENS.map((entry) => ({ token: entry.token, logProbability: entry.logprob })));
    expect(upstream.requests[0].json).toMatchObject({ include: ['message.output_text.logprobs'], top_logprobs: 2 });
  });

  it('on a Messages upstream, which has none: answered without them, said in X-Gateway-Adapted', async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'ant/claude-up', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true }).withResponse();
    // Before: left out without a word.
    expect(anthropicFake.rejections).toEqual([]);
    expect(data.choices[0].logprobs).toBeNull();
    expect(response.headers.get('x-gateway-adapted')).toBe('logprobs=removed');
  });
});
