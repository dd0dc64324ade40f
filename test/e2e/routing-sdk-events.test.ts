import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { readSse } from '../helpers/routing-wire.ts';
import { REPO_ROOT, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const fixture = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures', name), 'utf8');
const CHAT_TEXT = 'Héllo wörld 👋!';
const RESPONSES_TEXT = 'Hello! How can I help? 👋';
const EVENTS = { 'X-Gateway-Events': 'routing' };

// With routing events on, every official SDK stream helper still completes: the primary of
// each model fails (503/529) so both `routing` and `fallback` events are in every stream.
describe('routing events keep the official SDK stream helpers working', () => {
  let bad: FakeUpstream;
  let good: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    bad = await startFakeUpstream((req) =>
      req.path.endsWith('/messages')
        ? { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }
        : { status: 503, json: { error: { message: 'unavailable', type: 'server_error', param: null, code: null } } },
    );
    good = await startFakeUpstream((req) => {
      if (req.path.endsWith('/chat/completions')) return { sse: [fixture('chat/stream-text-usage.sse.txt')] };
      if (req.path.endsWith('/responses')) return { sse: [fixture('responses/text-turn.sse.txt')] };
      return { sse: [fixture('messages/stream-text.sse.txt')] };
    });
    const openaiAt = (url: string, extra: Record<string, unknown>) => ({ plugin: 'openai', baseURL: `${url}/v1`, apiKey: 'x', ...extra });
    const anthropicAt = (url: string, extra: Record<string, unknown>) => ({ plugin: 'anthropic', baseURL: url, apiKey: 'x', models: ['claude-x'], ...extra });
    gw = await spawnGateway({
      config: {
        providers: {
          c1: openaiAt(bad.url, { models: ['m1'], priority: 1 }),
          c2: openaiAt(good.url, { models: ['m1'], priority: 2 }),
          r1: openaiAt(bad.url, { models: ['r1'], formats: ['responses'], priority: 1 }),
          r2: openaiAt(good.url, { models: ['r1'], formats: ['responses'], priority: 2 }),
          a1: anthropicAt(bad.url, { priority: 1 }),
          a2: anthropicAt(good.url, { priority: 2 }),
        },
        // a high threshold keeps every primary in play, so every stream has a fallback event
        routing: { retry: { baseMs: 5 }, breaker: { failureThreshold: 1000 } },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, defaultHeaders: EVENTS, maxRetries: 0, timeout: 10_000 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, defaultHeaders: EVENTS, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await bad?.close();
    await good?.close();
  });

  /** The raw stream, to prove the events were really there for the SDK to cope with. */
  async function rawEvents(route: string, body: Record<string, unknown>): Promise<Array<string | undefined>> {
    const res = await fetch(`${gw.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', ...EVENTS },
      body: JSON.stringify({ ...body, stream: true }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.headers.get('x-fallback-used')).toBe('true');
    return (await readSse(res)).map((r) => r.event ?? (r.data.startsWith('{"type"') ? JSON.parse(r.data).type : 'data'));
  }

  const messages = [{ role: 'user' as const, content: 'hi' }];

  describe.each([
    ['passthrough', 'm1', CHAT_TEXT],
    ['converted from Messages', 'claude-x', CHAT_TEXT],
  ])('chat.completions.stream() (%s)', (_label, model, text) => {
    it('finalChatCompletion() succeeds and the chunks carry routing and fallback', async () => {
      const stream = openai.chat.completions.stream({ model, messages, stream_options: { include_usage: true } });
      const extras: string[] = [];
      stream.on('chunk', (chunk) => {
        const c = chunk as unknown as Record<string, unknown>;
        if (c.routing) extras.push('routing');
        if (c.fallback) extras.push('fallback');
      });
      const completion = await stream.finalChatCompletion();
      expect(completion.choices[0].message.content).toBe(text);
      expect(completion.choices[0].finish_reason).toBe('stop');
      expect(extras).toEqual(['routing', 'fallback']);
      const events = await rawEvents('/v1/chat/completions', { model, messages });
      expect(events.slice(0, 3)).toEqual(['routing', 'fallback', 'data']);
    });
  });

  describe.each([
    ['passthrough', 'r1', RESPONSES_TEXT],
    ['converted from Chat', 'm1', CHAT_TEXT],
  ])('responses.stream() (%s)', (_label, model, text) => {
    it('finalResponse() succeeds and routing/fallback come right after response.created', async () => {
      const stream = openai.responses.stream({ model, input: 'hi' });
      const types: string[] = [];
      stream.on('event', (event) => {
        const e = event as unknown as Record<string, unknown>;
        types.push(e.routing ? `${event.type}: routing` : e.fallback ? `${event.type}: fallback` : event.type);
      });
      const response = await stream.finalResponse();
      const output = response.output.flatMap((item) => (item.type === 'message' ? item.content : []));
      expect(output.map((c) => (c.type === 'output_text' ? c.text : '')).join('')).toBe(text);
      expect(response.status).toBe('completed');
      // Typed `keepalive`, which openai 7's ResponseStream skips (test/e2e/official-sdks-node22 runs it).
      expect(types.slice(0, 3)).toEqual(['response.created', 'keepalive: routing', 'keepalive: fallback']);
      const events = await rawEvents('/v1/responses', { model, input: 'hi' });
      expect(events.slice(0, 3)).toEqual(['response.created', 'routing', 'fallback']);
    });
  });

  describe.each([
    ['passthrough', 'claude-x', CHAT_TEXT],
    ['converted from Chat', 'm1', CHAT_TEXT],
  ])('messages.stream() (%s)', (_label, model, text) => {
    it('finalMessage() succeeds with routing and fallback before message_start', async () => {
      const message = await anthropic.messages.stream({ model, max_tokens: 100, messages }).finalMessage();
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text })]);
      expect(message.stop_reason).toBe('end_turn');
      const events = await rawEvents('/v1/messages', { model, max_tokens: 100, messages });
      expect(events.slice(0, 3)).toEqual(['routing', 'fallback', 'message_start']);
    });
  });

  it('non-streamed SDK calls see the same details as headers', async () => {
    good.setHandler(() => ({
      json: { id: 'c', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] },
    }));
    const { data, response } = await openai.chat.completions.create({ model: 'm1', messages }).withResponse();
    expect(data.choices[0].message.content).toBe('ok');
    expect(response.headers.get('x-routing-resolved-model')).toBe('c2/m1');
    expect(response.headers.get('x-fallback-reason')).toBe('provider_unavailable');
    expect(response.headers.get('x-fallback-discount')).toBe('0.1');
  });
});
