/**
 * OpenAI's Responses API has no stop sequences: a Chat or Messages client's `stop` /
 * `stop_sequences` to a model served over it are emulated by the gateway. The answer's text is cut
 * at the first stop sequence (left out, as OpenAI and Anthropic do), whole and streamed — no part of
 * the stop string leaks across delta boundaries — with finish_reason `stop` (Chat) and stop_reason
 * `stop_sequence` naming it (Messages); `X-Gateway-Adapted: stop=emulated`. The strict fake refuses
 * `stop` on Responses, and streams its text in 3-character deltas.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

const STOP = '\nObservation:';
const BEFORE = 'Thought: look it up.';
const MODEL = 'or/gpt-5-chat-latest';

describe('stop sequences on a Responses upstream are emulated', () => {
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  let openai: OpenAI;

  beforeAll(async () => {
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5-chat-latest': { maxOutput: 16384, reasoning: false } }, finalText: `${BEFORE}${STOP} sunny\nFinal: sunny`, deltaSize: 3 });
    gw = await spawnGateway({
      config: {
        providers: { or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5-chat-latest'] } },
        routing: { retry: { attempts: 1 } },
      },
    });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await responses?.close();
  });
  beforeEach(() => {
    responses.requests.length = 0;
    responses.rejections.length = 0;
  });

  it('Messages, whole: the text ends before the stop sequence, stop_reason stop_sequence names it', async () => {
    const { data, response } = await anthropic.messages.create({ model: MODEL, max_tokens: 400, stop_sequences: ['Never', STOP], messages: [{ role: 'user', content: 'Weather?' }] }).withResponse();
    expect(responses.rejections).toEqual([]);
    expect((responses.requests[0].json as Json).stop).toBeUndefined();
    expect(data.content).toEqual([{ type: 'text', text: BEFORE }]);
    expect([data.stop_reason, data.stop_sequence]).toEqual(['stop_sequence', STOP]);
    expect(response.headers.get('x-gateway-adapted')).toBe('stop=emulated');
  });

  it("a refused stop sequence is named as the client wrote it (Messages: stop_sequences, Gemini: generationConfig.stopSequences), before any upstream call", async () => {
    const long = 'x'.repeat(10_001);
    const messages = await anthropic.messages.create({ model: MODEL, max_tokens: 40, stop_sequences: ['ok', long], messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(messages).toBeInstanceOf(Anthropic.UnprocessableEntityError);
    expect((messages as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { param: 'stop_sequences[1]' } });
    expect((messages as Error).message).toContain("'stop_sequences[1]'");
    const many = await anthropic.messages.create({ model: MODEL, max_tokens: 40, stop_sequences: Array.from({ length: 65 }, (_, i) => `s${i}`), messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((many as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { param: 'stop_sequences' } });
    const gemini = await fetch(`${gw.url}/v1beta/models/${MODEL}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': String(gw.key), 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { stopSequences: [long] } }),
    });
    const refused = (await gemini.json()) as Json;
    expect(gemini.status).toBe(400);
    expect(JSON.stringify(refused)).toContain('generationConfig.stopSequences[0]');
    const chat = await openai.chat.completions.create({ model: MODEL, stop: [long], messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((chat as InstanceType<typeof OpenAI.APIError>).param).toBe('stop[0]');
    expect(responses.requests).toEqual([]);
  });

  it('Messages, streamed: no text delta carries any of the stop string, and the message stops on it', async () => {
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 400, stop_sequences: [STOP], messages: [{ role: 'user', content: 'Weather?' }] });
    const deltas: string[] = [];
    stream.on('text', (text) => deltas.push(text));
    const message = await stream.finalMessage();
    expect(deltas.join('')).toBe(BEFORE);
    expect(deltas.length).toBeGreaterThan(1);
    expect(message.content).toMatchObject([{ type: 'text', text: BEFORE }]);
    expect([message.stop_reason, message.stop_sequence]).toEqual(['stop_sequence', STOP]);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('Chat, whole and streamed: content cut at the stop, finish_reason stop', async () => {
    const whole = await openai.chat.completions.create({ model: MODEL, stop: [STOP], messages: [{ role: 'user', content: 'Weather?' }] });
    expect([whole.choices[0].message.content, whole.choices[0].finish_reason]).toEqual([BEFORE, 'stop']);
    const stream = await openai.chat.completions.create({ model: MODEL, stop: STOP, messages: [{ role: 'user', content: 'Weather?' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(BEFORE);
    expect(finishes).toEqual(['stop']);
    expect(usage?.completion_tokens).toBe(20);
    expect(responses.rejections).toEqual([]);
  });

  it('a text without the stop sequence is sent whole, nothing held back', async () => {
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 400, stop_sequences: ['sunny!'], messages: [{ role: 'user', content: 'Weather?' }] });
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: `${BEFORE}${STOP} sunny\nFinal: sunny` }]);
    expect([message.stop_reason, message.stop_sequence]).toEqual(['end_turn', null]);
  });
});
