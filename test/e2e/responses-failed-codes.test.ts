/**
 * How a failed Responses stream ends, as Codex reads it. Codex 0.171 tells a failure only from
 * `response.failed`'s `response.error.code`: it stops at OpenAI's non-retryable codes
 * (`invalid_prompt`, `context_length_exceeded`, `insufficient_quota`, …) and retries the turn
 * five times on any other; an `error` event with no `response.failed` after it is a stream that
 * closed early, retried whatever its code. So a passthrough whose upstream ends after an `error`
 * event gets the `response.failed` OpenAI would have sent (the upstream's code), and a converted
 * stream refused part-way (the spec's `bad_request`, `content_filter`) says `invalid_prompt`
 * there, while its `error` event keeps the spec's code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { codexSaysHi, ensureTestClients } from '../helpers/test-clients.ts';
import { parseSse } from '../../src/sse/index.ts';

/** The upstream `error` event's code for the passthrough (the Responses upstream). */
let errorCode = 'invalid_prompt';

/** A Responses server that fails after response.created with an `error` event and ends there (no response.failed). */
function responsesErrorOnly() {
  const response = { id: 'resp_up1', object: 'response', created_at: 1_700_000_000, status: 'in_progress', model: 'gpt-5', output: [], usage: null };
  return namedSse([
    { type: 'response.created', sequence_number: 0, response },
    { type: 'error', sequence_number: 1, code: errorCode, message: 'Invalid prompt: your prompt was flagged.', param: null },
  ]);
}

/** Anthropic refusing part-way: some text, then an `error` event (invalid_request_error). */
function messagesRefusedPartWay() {
  return namedSse([
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-up', content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
    { type: 'error', error: { type: 'invalid_request_error', message: 'The request was refused part-way.' } },
  ]);
}

async function streamed(gw: SpawnedGateway, model: string) {
  const response = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'hi', stream: true }),
  });
  expect(response.status).toBe(200);
  return parseSse(await response.text()).map((record) => JSON.parse(record.data) as Record<string, any>);
}

describe('a failed Responses stream, as Codex reads it', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    upstream = await startFakeUpstream((request) => ({ sse: request.path.startsWith('/v1/messages') ? messagesRefusedPartWay() : responsesErrorOnly() }));
    gw = await spawnGateway({
      config: {
        providers: {
          or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', models: ['claude-up'] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it.each(['invalid_prompt', 'server_error'])('a passthrough whose upstream ends after an error event (%s) ends with response.failed naming its code', async (code) => {
    errorCode = code;
    const events = await streamed(gw, 'or/gpt-5');
    expect(events.map((event) => event.type)).toEqual(['response.created', 'error', 'response.failed']);
    expect(events[1]!.code).toBe(code); // the upstream's own record, relayed as it came
    expect(events[2]).toMatchObject({ sequence_number: 2, response: { id: events[0]!.response.id, status: 'failed', model: 'gpt-5', error: { code, message: 'Invalid prompt: your prompt was flagged.' } } });
  });

  it("a converted stream refused part-way says invalid_prompt in response.failed (its error event keeps the spec's bad_request)", async () => {
    const events = await streamed(gw, 'ant/claude-up');
    const [error, failed] = events.slice(-2);
    expect(error).toMatchObject({ type: 'error', code: 'bad_request' });
    expect(failed).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'invalid_prompt' } } });
  });

  // Before, Codex retried both five times ('Reconnecting... 1/5' to 5/5, six upstream calls).
  it.each(['or/gpt-5', 'ant/claude-up'])('the real Codex on %s stops at once, as at OpenAI\'s invalid_prompt', async (model) => {
    errorCode = 'invalid_prompt';
    const before = upstream.requests.length;
    const { run, report } = await codexSaysHi(gw, model, upstream);
    expect(run.exitCode, report).toBe(1);
    expect(run.stderr, report).not.toContain('Reconnecting');
    expect(upstream.requests.length - before, report).toBe(1);
  }, 150_000);
});
