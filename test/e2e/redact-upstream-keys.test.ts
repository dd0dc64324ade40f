/**
 * Upstream keys are redacted by value (issue 14, part 4): fake upstreams of every format quote
 * the gateway's configured key (and a configured custom header's value) back in their error
 * messages, as JSON errors, as the first record of a stream and in the middle of a stream. The
 * official SDKs, for every client format, must never see a key; nor may the gateway's log.
 * The keys are chosen so the old prefix pattern (`sk-`, `key-`, `Bearer`) cannot catch them.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFormat } from '../../src/ir/types.ts';
import { chatSse, namedSse, startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { chatChunk, messagesStream } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const KEYS: Record<WireFormat, string> = {
  chat: 'AIzaSyChatUpstream0123456789abcdefXYZ',
  responses: 'resp_live_QWERTY98765zyxwv',
  messages: 'anthropic.live.ZYXWVUT1234567',
};
const HEADER_SECRET = 'hdr_tok_9f8e7d6c5b4a3210';
const ALL_SECRETS = [...Object.values(KEYS), HEADER_SECRET];

type Fault = 'AUTH' | 'BAD' | 'FIRSTFAIL' | 'MIDFAIL';
const FAULTS: Fault[] = ['AUTH', 'BAD', 'FIRSTFAIL', 'MIDFAIL'];

function quote(format: WireFormat): string {
  return `Incorrect API key provided: ${KEYS[format]} (header ${HEADER_SECRET})`;
}

/** An upstream error body of `format` quoting the key. */
function errorBody(format: WireFormat, type: string): Record<string, unknown> {
  if (format === 'messages') return { type: 'error', error: { type, message: quote(format) } };
  return { error: { message: quote(format), type, param: null, code: type === 'authentication_error' ? 'invalid_api_key' : null } };
}

/** The native error record of a stream of `format`. */
function errorRecord(format: WireFormat): string[] {
  if (format === 'chat') return [`data: ${JSON.stringify(errorBody('chat', 'invalid_request_error'))}\n\n`];
  if (format === 'messages') return namedSse([{ type: 'error', error: { type: 'invalid_request_error', message: quote(format) } }]);
  return namedSse([{ type: 'error', sequence_number: 3, code: 'invalid_request_error', message: quote(format), param: null }]);
}

/** Some content of a stream of `format`, before its error record. */
function streamHead(format: WireFormat): string[] {
  if (format === 'chat') return chatSse([chatChunk({ role: 'assistant', content: '' }), chatChunk({ content: 'Hel' })], false);
  if (format === 'messages') return messagesStream(['Hel'], { stop: false }).slice(0, 3);
  const response = { id: 'resp_up1', object: 'response', created_at: 1_700_000_000, status: 'in_progress', model: 'gpt-resp', output: [] };
  return namedSse([
    { type: 'response.created', sequence_number: 0, response },
    { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] } },
    { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hel' },
  ]);
}

function fakeFor(format: WireFormat) {
  return (req: ReceivedRequest): FakeReply => {
    const prompt = JSON.stringify(req.json?.messages ?? req.json?.input ?? '');
    if (req.json?.model === 'gpt-500') return { status: 500, json: errorBody(format, 'server_error') };
    const fault = FAULTS.find((f) => prompt.includes(f)) ?? 'AUTH';
    if (fault === 'AUTH') return { status: 401, json: errorBody(format, 'authentication_error') };
    if (fault === 'BAD') return { status: 400, json: errorBody(format, 'invalid_request_error') };
    if (fault === 'FIRSTFAIL') return { sse: errorRecord(format) };
    return { sse: [...streamHead(format), ...errorRecord(format)] };
  };
}

const UPSTREAMS: WireFormat[] = ['chat', 'responses', 'messages'];
const MODEL: Record<WireFormat, string> = { chat: 'c/gpt-chat', responses: 'r/gpt-resp', messages: 'a/claude-up' };

/** Everything a client saw of one call: the stream's events, then the error it threw. */
async function seen(run: () => Promise<unknown>): Promise<string> {
  try {
    const out = await run();
    return JSON.stringify(out);
  } catch (error) {
    const e = error as { message?: string; error?: unknown; headers?: unknown };
    return `${e.message} ${JSON.stringify(e.error)} ${String(error)}`;
  }
}

async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('upstream keys are redacted by value, every format, JSON and stream', () => {
  const fakes = {} as Record<WireFormat, FakeUpstream>;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    for (const format of UPSTREAMS) fakes[format] = await startFakeUpstream(fakeFor(format));
    const headers = { 'x-upstream-token': HEADER_SECRET };
    gw = await spawnGateway({
      config: {
        logging: { level: 'debug' },
        providers: {
          c: { plugin: 'openai', baseURL: `${fakes.chat.url}/v1`, apiKey: KEYS.chat, headers, formats: ['chat'], models: ['gpt-chat'] },
          r: { plugin: 'openai', baseURL: `${fakes.responses.url}/v1`, apiKey: KEYS.responses, headers, formats: ['responses'], models: ['gpt-resp'] },
          a: { plugin: 'anthropic', baseURL: fakes.messages.url, apiKey: KEYS.messages, headers, models: ['claude-up'] },
          x: { plugin: 'openai', baseURL: `${fakes.chat.url}/v1`, apiKey: KEYS.chat, headers, formats: ['chat'], models: ['gpt-500'] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    for (const fake of Object.values(fakes)) await fake?.close();
  });

  function expectClean(text: string): void {
    for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
  }

  const clients: Record<WireFormat, (model: string, prompt: string, stream: boolean) => Promise<unknown>> = {
    chat: (model, prompt, stream) =>
      stream
        ? openai.chat.completions.create({ model, messages: [{ role: 'user', content: prompt }], stream: true }).then(drain)
        : openai.chat.completions.create({ model, messages: [{ role: 'user', content: prompt }] }),
    responses: (model, prompt, stream) =>
      stream ? openai.responses.create({ model, input: prompt, stream: true }).then(drain) : openai.responses.create({ model, input: prompt }),
    messages: (model, prompt, stream) =>
      stream
        ? anthropic.messages.create({ model, max_tokens: 50, messages: [{ role: 'user', content: prompt }], stream: true }).then(drain)
        : anthropic.messages.create({ model, max_tokens: 50, messages: [{ role: 'user', content: prompt }] }),
  };

  describe.each(UPSTREAMS)('%s upstream', (upstream) => {
    it.each(UPSTREAMS)('%s client: JSON 401 and 400 quoting the key', async (client) => {
      for (const fault of ['AUTH', 'BAD'] as const) {
        const text = await seen(() => clients[client](MODEL[upstream], fault, false));
        expectClean(text);
        // The 400 message is relayed (so redaction, not silence, is what hides the key).
        if (fault === 'BAD') expect(text).toContain('Incorrect API key provided: [redacted] (header [redacted])');
      }
    });

    it.each(UPSTREAMS)('%s client: a stream failing at its first record and in the middle', async (client) => {
      for (const fault of ['FIRSTFAIL', 'MIDFAIL'] as const) {
        const text = await seen(() => clients[client](MODEL[upstream], fault, true));
        expectClean(text);
        expect(text).toContain('[redacted]');
      }
    });
  });

  it('raw bytes of a passed-through stream error carry no key either', async () => {
    for (const format of UPSTREAMS) {
      const route = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' }[format];
      const body = format === 'responses' ? { model: MODEL[format], input: 'MIDFAIL', stream: true } : { model: MODEL[format], max_tokens: 50, messages: [{ role: 'user', content: 'MIDFAIL' }], stream: true };
      const res = await fetch(`${gw.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const raw = await res.text();
      expect(raw).toContain('Hel');
      expect(raw).toContain('[redacted]');
      expectClean(raw);
    }
  });

  it("the gateway's log never holds a key, though it logs the upstream failure that quoted one", async () => {
    const text = await seen(() => clients.chat('x/gpt-500', 'hi', false));
    expectClean(text);
    for (let i = 0; i < 40 && !/upstream call failed.*x\/gpt-500/.test(gw.stderr()); i += 1) await new Promise((r) => setTimeout(r, 50));
    const log = gw.stdout() + gw.stderr();
    expect(log).toMatch(/upstream call failed.*x\/gpt-500.*Incorrect API key provided: \[redacted\] \(header \[redacted\]\)/);
    expectClean(log);
  });
});
