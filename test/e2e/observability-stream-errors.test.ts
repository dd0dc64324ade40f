/**
 * An upstream that accepts a streamed request (200, its first records) and then refuses it in its
 * own error record (here a context overflow: Anthropic's `error` event, OpenAI's `response.failed`)
 * ends the client's stream in that error. The request log, the live window and /metrics record it
 * as an error with the code the client's stream ended with, beside the 200 the client got; before,
 * they recorded a success (error_code null, error_type "").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

function refuseAfterStart(path: string) {
  if (path.startsWith('/v1/responses')) {
    const response = { id: 'resp_1', object: 'response', model: 'gpt-5', output: [] };
    return {
      sse: namedSse([
        { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress' } },
        { type: 'response.failed', sequence_number: 1, response: { ...response, status: 'failed', error: { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' } } },
      ]),
    };
  }
  return {
    sse: namedSse([
      { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-up', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 0 } } },
      { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
    ]),
  };
}

describe('a stream the upstream refused after its first byte is recorded as an error', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => refuseAfterStart(request.path));
    gw = await spawnGateway({
      config: {
        logging: { requests: true },
        providers: {
          or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', models: ['claude-up'] },
        },
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('in the request log, the live window and /metrics, passed through or converted', { timeout: 60_000 }, async () => {
    const headers = { authorization: `Bearer ${gw.key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
    const asked = [
      ['/v1/responses', { model: 'or/gpt-5', stream: true, input: 'long' }],
      ['/v1/chat/completions', { model: 'or/gpt-5', stream: true, messages: [{ role: 'user', content: 'long' }] }],
      ['/v1/messages', { model: 'ant/claude-up', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'long' }] }],
      ['/v1/responses', { model: 'ant/claude-up', stream: true, input: 'long' }],
    ] as const;
    const ids: string[] = [];
    for (const [route, body] of asked) {
      const res = await fetch(`${gw.url}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await res.text();
      expect([route, body.model, res.status]).toEqual([route, body.model, 200]);
      expect(text).toMatch(/context window|too long/);
      ids.push(res.headers.get('x-request-id')!);
    }

    const deadline = Date.now() + 10_000;
    const lineOf = (id: string) => gw.stdout().split('\n').find((line) => line.includes(`"request_id":"${id}"`));
    while (ids.some((id) => !lineOf(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = ids.map((id) => JSON.parse(lineOf(id) ?? '{}') as { route?: string; model?: string; status?: number; error_code?: string | null });
    expect(lines.map((line) => [line.route, line.model, line.status, line.error_code])).toEqual(asked.map(([route, body]) => [route, body.model, 200, 'bad_request']));

    const status = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'status', '--json']);
    expect(JSON.parse(String(status.stdout))).toMatchObject({ requests: 4, errors: 4 });

    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    for (const model of ['or/gpt-5', 'ant/claude-up']) {
      expect(metrics).toContain(`gen_ai_server_request_duration_seconds_count{gen_ai_operation_name="chat",gen_ai_request_model="${model}",gen_ai_provider_name="${model.split('/')[0]}",error_type="bad_request"} 2`);
    }
    expect(metrics).not.toMatch(/gen_ai_server_request_duration_seconds_count\{[^}]*error_type=""\}/);
  });
});
