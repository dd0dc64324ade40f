/**
 * An OpenAI-compatible upstream out of credit on the gateway's account answers 402 (OpenRouter's
 * "Insufficient credits", DeepSeek's "Insufficient Balance"): nothing the client can mend, so as
 * OpenAI's insufficient_quota it is the provider's (rate_limit_exceeded marked upstream_quota_exhausted,
 * x-should-retry: false) and the next candidate of a fallback chain serves. Before, a 402
 * was read as any other 4xx, the client's 400 bad_request, and no fallback ran. Real CLI, a fake upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('an upstream out of credit (402) is the provider\'s failure (bin/gateway, fake OpenAI-compatible upstream)', () => {
  let broke: FakeUpstream;
  let anthropic: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    broke = await startFakeUpstream(() => ({ status: 402, json: { error: { message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits', code: 402 } } }));
    // Anthropic says it with a 400 and its words (the type is the client's invalid_request_error).
    anthropic = await startFakeUpstream(() => ({
      status: 400,
      json: { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.' } },
    }));
    gw = await spawnGateway({
      config: {
        providers: {
          router: { plugin: 'openai', baseURL: `${broke.url}/v1`, apiKey: 'x', models: ['gpt-4o-mini', 'gpt-4.1'] },
          ant: { plugin: 'anthropic', baseURL: anthropic.url, apiKey: 'x', models: ['claude-sonnet-4-5'] },
          backup: { plugin: 'mock', models: [{ id: 'echo' }] },
        },
        routing: { retry: { attempts: 1 }, models: { 'router/gpt-4.1': { fallbacks: ['backup/echo'] }, 'ant/claude-sonnet-4-5': { fallbacks: ['backup/echo'] } } },
        billing: { enforce: false },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await broke?.close();
    await anthropic?.close();
  });

  const ask = (model: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('answers as OpenAI does for its own insufficient_quota: 429 rate_limit_exceeded, upstream_quota_exhausted, x-should-retry: false', async () => {
    const res = await ask('router/gpt-4o-mini');
    const text = await res.text();
    expect(res.status, text).toBe(429);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'rate_limit_exceeded', details: { upstream_status: 402, upstream_quota_exhausted: true } } });
    expect(res.headers.get('x-should-retry')).toBe('false');
  });

  it('the fallback chain goes on to the next candidate', async () => {
    const res = await ask('router/gpt-4.1');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-routing-resolved-model')).toBe('backup/echo');
  });

  it("Anthropic's 'credit balance is too low' (a 400) is the same: the fallback serves, never the client's bad_request", async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `${gw.key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ant/claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-routing-resolved-model')).toBe('backup/echo');
  });
});
