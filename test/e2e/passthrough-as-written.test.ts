/**
 * Passthrough is never stricter than the upstream (issue 24 §1): a same-format request with a
 * role, an input item or a field the gateway does not know reaches the upstream byte for byte
 * (only the model id is rewritten), sent by the official SDKs through the real gateway to
 * strict fakes; the upstream judges it. A converted route still refuses what it cannot convert,
 * with a 422 naming the field.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe('same-format requests are forwarded as the client wrote them', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  /** The body text each SDK put on the wire, last request first. */
  const sent: string[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') sent.unshift(init.body);
    return fetch(input, init);
  };
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } } });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-4.1': { maxOutput: 32768, reasoning: false } } });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } } });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000 }] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000, fetch: recordingFetch });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 10_000, fetch: recordingFetch });
  });
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages]) await fake?.close();
  });
  beforeEach(() => {
    sent.length = 0;
    for (const fake of [chat, responses, messages]) {
      fake.requests.length = 0;
      fake.rejections.length = 0;
    }
  });

  /** The client's own text with the gateway's model id replaced by the upstream's: what a passthrough sends. */
  const asForwarded = (text: string, from: string, to: string) => text.replace(JSON.stringify(from), JSON.stringify(to));

  it('Chat: a `critic` message and an unknown field each reach the upstream byte for byte; its 400 comes back to the SDK', async () => {
    const messages = [{ role: 'user', content: 'hi' }, { role: 'critic', content: 'too terse' }];
    const role = await openai.chat.completions.create({ model: 'oc/gpt-4o-mini', messages } as never).catch((e: unknown) => e);
    const field = await openai.chat.completions.create({ model: 'oc/gpt-4o-mini', messages: messages.slice(0, 1), future_field: { a: [1, 2] } } as never).catch((e: unknown) => e);
    expect(chat.requests).toHaveLength(2);
    expect(chat.requests[0].body).toBe(asForwarded(sent[1], 'oc/gpt-4o-mini', 'gpt-4o-mini'));
    expect(chat.requests[1].body).toBe(asForwarded(sent[0], 'oc/gpt-4o-mini', 'gpt-4o-mini'));
    // The strict fake, like OpenAI, refuses both: the upstream judged them, not the gateway.
    expect(role).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((role as Error).message)).toContain("Invalid value: 'critic'");
    expect(field).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((field as Error).message)).toContain('future_field');
  });

  it('Responses: a `critic` message and an unknown input item type reach the upstream byte for byte (stored and not); so does an unknown field', async () => {
    const input = [
      { role: 'user', content: 'hi' },
      { role: 'critic', content: 'too terse' },
      { type: 'critic_note', text: 'aside' },
    ];
    for (const store of [undefined, false]) {
      sent.length = 0;
      responses.requests.length = 0;
      const body: Json = { model: 'or/gpt-4.1', input };
      if (store !== undefined) body.store = store;
      const answer = await openai.responses.create(body as never);
      expect(answer.output_text).toBe('Done: the file is written.');
      expect(responses.requests).toHaveLength(1);
      expect(responses.requests[0].body).toBe(asForwarded(sent[0], 'or/gpt-4.1', 'gpt-4.1'));
      expect((responses.requests[0].json as Json).input).toEqual(input);
    }
    expect(responses.rejections).toEqual([]);
    const field = await openai.responses.create({ model: 'or/gpt-4.1', input: 'hi', future_field: true } as never).catch((e: unknown) => e);
    expect(responses.requests[1].body).toBe(asForwarded(sent[0], 'or/gpt-4.1', 'gpt-4.1'));
    expect(field).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((field as Error).message)).toContain('future_field');
  });

  it('Messages: a `narrator` turn and an unknown field each reach the upstream byte for byte; its 400 comes back to the SDK', async () => {
    const turns = [{ role: 'user', content: 'hi' }, { role: 'narrator', content: 'aside' }];
    const role = await anthropic.messages.create({ model: 'ant/claude-up', max_tokens: 100, messages: turns } as never).catch((e: unknown) => e);
    const field = await anthropic.messages.create({ model: 'ant/claude-up', max_tokens: 100, messages: turns.slice(0, 1), future_field: { a: 1 } } as never).catch((e: unknown) => e);
    expect(messages.requests).toHaveLength(2);
    expect(messages.requests[0].body).toBe(asForwarded(sent[1], 'ant/claude-up', 'claude-up'));
    expect(messages.requests[1].body).toBe(asForwarded(sent[0], 'ant/claude-up', 'claude-up'));
    expect(role).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((role as Error).message)).toContain('messages.1.role');
    expect(field).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((field as Error).message)).toContain('future_field');
  });

  it('a value the gateway\'s decoder would refuse is not checked on a passthrough (the request is never decoded); a conversion still checks it', async () => {
    // temperature 3 is out of Chat's documented range: the gateway's decoder says 422, the fake takes it.
    const passed = await openai.chat.completions.create({ model: 'oc/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 3 });
    expect(passed.choices[0].message.content).toBe('Done: the file is written.');
    expect(chat.requests[0].body).toBe(asForwarded(sent[0], 'oc/gpt-4o-mini', 'gpt-4o-mini'));
    const converted = await openai.chat.completions.create({ model: 'or/gpt-4.1', messages: [{ role: 'user', content: 'hi' }], temperature: 3 }).catch((e: unknown) => e);
    expect(converted).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((converted as InstanceType<typeof OpenAI.APIError>).param).toBe('temperature');
    expect(responses.requests).toHaveLength(0);
  });

  it('a converted route refuses the role it cannot convert with a 422 naming the field, and calls no upstream', async () => {
    const chatToResponses = await openai.chat.completions.create({ model: 'or/gpt-4.1', messages: [{ role: 'user', content: 'hi' }, { role: 'critic', content: 'x' }] } as never).catch((e: unknown) => e);
    expect(chatToResponses).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((chatToResponses as InstanceType<typeof OpenAI.APIError>).param).toBe('messages[1].role');
    const responsesToMessages = await openai.responses.create({ model: 'ant/claude-up', input: [{ role: 'critic', content: 'x' }] } as never).catch((e: unknown) => e);
    expect(responsesToMessages).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((responsesToMessages as InstanceType<typeof OpenAI.APIError>).param).toBe('input[0].role');
    expect(responses.requests).toHaveLength(0);
    expect(messages.requests).toHaveLength(0);
  });
});
