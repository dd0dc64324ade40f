/**
 * A Responses passthrough stream the upstream cuts mid-answer ends as the converted stream does
 * and as the docs say: an `error` event (the openai SDK throws on it), then `response.failed`
 * whose `response.error` carries the same code, which Codex and the AI SDK read (Codex picks
 * retry, context-window or quota handling from `response.error.code`; before, it saw only a
 * stream that closed before `response.completed`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const created = { id: 'resp_cut1', object: 'response', created_at: 1_700_000_000, status: 'in_progress', model: 'gpt-5', output: [], usage: null };
const partial = namedSse([
  { type: 'response.created', sequence_number: 0, response: created },
  { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
  { type: 'response.output_text.delta', sequence_number: 2, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Half an ans' },
]);

/** The SSE events of a body, in order. */
function events(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]!);
      return { event, data };
    });
}

describe('a Responses passthrough stream cut by the upstream', () => {
  let fake: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    fake = await startFakeUpstream(() => ({ sse: partial, delayMs: 100, reset: true }));
    gw = await spawnGateway({ config: { providers: { or: { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] } } } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
  });

  it('ends with an error event, then response.failed naming the same code', async () => {
    const response = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'or/gpt-5', input: 'hi', stream: true, store: false }),
    });
    expect(response.status).toBe(200);
    const all = events(await response.text());
    expect(all.map((e) => e.event)).toEqual(['response.created', 'response.output_item.added', 'response.output_text.delta', 'error', 'response.failed']);
    const [error, failed] = all.slice(-2);
    expect(error!.data.code).toBe('provider_error');
    expect(failed!.data).toMatchObject({ type: 'response.failed', sequence_number: 4, response: { id: 'resp_cut1', object: 'response', status: 'failed', model: 'gpt-5', error: { code: 'provider_error', message: error!.data.message } } });
  });
});
