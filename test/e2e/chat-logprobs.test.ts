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
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { REPO_ROOT, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

const fixture = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures', name), 'utf8');
const TOKENS = (JSON.parse(fixture('chat/response-logprobs.json')) as Json).choices[0].logprobs.content as Json[];

describe("a Chat or Gemini client's logprobs over a Responses upstream", () => {
  let upstream: FakeUpstream;
  let anthropicFake: StrictFake;
  let gemini: GeminiFake;
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
    // gemini-2.0-flash gives token log probabilities; gemini-2.5-pro refuses the ask, as Google's does.
    gemini = await startGeminiFake({ apiKey: 'goog', models: { 'gemini-2.0-flash': { thinking: false, gemini3: false, logprobs: true }, 'gemini-2.5-pro': { thinking: true, gemini3: false } }, finalText: 'Hello!' });
    gw = await spawnGateway({
      config: {
        providers: {
          or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
          ant: { plugin: 'anthropic', baseURL: anthropicFake.url, apiKey: 'x', models: ['claude-up'] },
          google: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: ['gemini-2.0-flash', 'gemini-2.5-pro'] },
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
    await gemini?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    gemini.requests.length = 0;
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

  describe('on a Gemini upstream: asked as responseLogprobs, logprobsResult given back', () => {
    const sent = () => gemini.requests.filter((request) => request.path.includes(':')).map((request) => (request.json as Json).generationConfig);

    it('whole and streamed, with top_logprobs', async () => {
      const done = await openai.chat.completions.create({ model: 'google/gemini-2.0-flash', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true, top_logprobs: 2 });
      // Before: not asked (X-Gateway-Adapted: logprobs=removed) and choices[0].logprobs null.
      expect(done.choices[0].message.content).toBe('Hello!');
      const tokens = done.choices[0].logprobs?.content ?? [];
      expect(tokens.map((entry) => entry.token)).toEqual(['Hel', 'lo!']);
      expect(tokens[0]).toMatchObject({ logprob: -0.25, bytes: null, top_logprobs: [{ token: 'Hel', logprob: -0.25 }, { token: 'Hel?', logprob: -2.25 }] });
      const stream = await openai.chat.completions.create({ model: 'google/gemini-2.0-flash', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true, top_logprobs: 1, stream: true });
      const streamed: Json[] = [];
      for await (const chunk of stream) streamed.push(...(chunk.choices[0]?.logprobs?.content ?? []));
      expect(streamed.map((entry) => [entry.token, entry.top_logprobs.length])).toEqual([['Hel', 1], ['lo!', 1]]);
      expect(sent()).toEqual([{ responseLogprobs: true, logprobs: 2 }, { responseLogprobs: true, logprobs: 1 }]);
      expect(gemini.rejections).toEqual([]);
    });

    it('a model that refuses them: answered without, said, and not asked again', async () => {
      const first = await openai.chat.completions.create({ model: 'google/gemini-2.5-pro', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true }).withResponse();
      expect(first.data.choices[0].message.content).toBe('Hello!');
      expect(first.data.choices[0].logprobs ?? null).toBeNull();
      expect(first.response.headers.get('x-gateway-adapted')).toBe('logprobs=removed');
      expect(gemini.rejections).toEqual(['Logprobs is not enabled for models/gemini-2.5-pro']);
      const second = await openai.chat.completions.create({ model: 'google/gemini-2.5-pro', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true, stream: true }).withResponse();
      for await (const _chunk of second.data);
      expect(second.response.headers.get('x-gateway-adapted')).toBe('logprobs=removed');
      // The refusal is the model's: gemini-2.0-flash on the same provider is still asked.
      await openai.chat.completions.create({ model: 'google/gemini-2.0-flash', messages: [{ role: 'user', content: 'Say hello' }], logprobs: true });
      // Asked, refused, asked again without; the second call without at once; the other model asked.
      expect(sent()).toEqual([{ responseLogprobs: true }, {}, {}, { responseLogprobs: true }]);
      expect(gemini.rejections).toHaveLength(1);
    });
  });
});
