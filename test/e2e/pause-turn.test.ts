/**
 * Anthropic's `pause_turn` (a long server-tool turn, e.g. many web searches, paused by Anthropic;
 * only an Anthropic client can send the paused content back to go on) reaches the other client
 * formats as their own "the answer is not finished": Chat `finish_reason: "length"`, Responses
 * `status: "incomplete"` (`max_output_tokens`), Gemini `MAX_TOKENS`; a Messages client keeps
 * `pause_turn` (passthrough). The fake Anthropic answers the recorded web-search turn with its
 * stop reason made `pause_turn`, whole and streamed; the clients are the openai SDK and plain
 * fetch for Gemini and Messages.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture, readJsonFixture } from '../formats/stream-helpers.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const MODEL = 'ant/claude-sonnet-4-5';
const QUESTION = 'When was Node 24 released?';

describe('pause_turn from an Anthropic upstream (bin/gateway, fake Anthropic)', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let key: string;

  beforeAll(async () => {
    const answer = { ...readJsonFixture('messages/response-web-search.json'), stop_reason: 'pause_turn' };
    const streamed = readFixture('messages/stream-web-search.sse.txt').replace('"stop_reason":"end_turn"', '"stop_reason":"pause_turn"');
    expect(streamed).toContain('"pause_turn"');
    upstream = await startFakeUpstream((req) => ((req.json as { stream?: boolean } | undefined)?.stream === true ? { headers: { 'content-type': 'text/event-stream' }, sse: [streamed] } : { json: answer }));
    gw = await spawnGateway({ config: { providers: { ant: { plugin: 'anthropic', apiKey: 'x', baseURL: upstream.url, models: ['claude-sonnet-4-5'] } }, routing: { retry: { attempts: 1 } } } });
    key = gw.key!;
    openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('a Chat client gets finish_reason "length", whole and streamed', async () => {
    const whole = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: QUESTION }] });
    expect(whole.choices[0].finish_reason).toBe('length');
    expect(whole.choices[0].message.content).toContain('Node.js 24 was released on May 6, 2025');
    const finishes: Array<string | null> = [];
    for await (const chunk of await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: QUESTION }], stream: true })) {
      for (const choice of chunk.choices) if (choice.finish_reason) finishes.push(choice.finish_reason);
    }
    expect(finishes).toEqual(['length']);
  });

  it('a Responses client gets status "incomplete" (max_output_tokens), whole and streamed', async () => {
    const whole = await openai.responses.create({ model: MODEL, input: QUESTION });
    expect(whole.status).toBe('incomplete');
    expect(whole.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(whole.output_text).toContain('Node.js 24 was released on May 6, 2025');
    const events: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of await openai.responses.create({ model: MODEL, input: QUESTION, stream: true })) {
      events.push(event.type);
      if (event.type === 'response.incomplete' || event.type === 'response.completed') final = event.response;
    }
    expect(events.at(-1)).toBe('response.incomplete');
    expect(final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('a Gemini client gets finishReason MAX_TOKENS; a Messages client keeps pause_turn', async () => {
    const gemini = await fetch(`${gw.url}/v1beta/models/${MODEL}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: QUESTION }] }] }),
    });
    expect(gemini.status).toBe(200);
    expect(((await gemini.json()) as any).candidates[0].finishReason).toBe('MAX_TOKENS');
    const messages = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: QUESTION }] }),
    });
    expect(((await messages.json()) as any).stop_reason).toBe('pause_turn');
  });
});
