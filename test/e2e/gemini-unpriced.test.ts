/**
 * A Gemini id the bundled catalog has no token price for is unpriced, though the google plugin
 * gives every Gemini id Google's grounding price (8f88d15): a web search price alone is an
 * add-on, not the model's price. So `billing.unpriced: 'reject'` still refuses it, the start-up
 * warning names it, `gateway models ls` marks it UNPRICED and `/v1/models` shows `pricing: null`.
 * Before, the search price made it look priced: served with its tokens free, no warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** A real Gemini id @pydantic/genai-prices has no price for. */
const UNPRICED = 'gemini-robotics-er-1.5-preview';
const PRICED = 'gemini-2.5-flash';

describe("a Gemini id without a token price is unpriced (billing.unpriced: 'reject', bin/gateway, Gemini fake)", () => {
  let gemini: GeminiFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    gemini = await startGeminiFake({ models: { [UNPRICED]: { thinking: false, gemini3: false }, [PRICED]: { thinking: false, gemini3: false } }, apiKey: 'goog-upstream-key' });
    gw = await spawnGateway({
      config: {
        providers: { google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [UNPRICED, PRICED] } },
        billing: { unpriced: 'reject', enforce: false },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });

  it('refuses it with 403 model_unpriced before any upstream call, serves the priced one, and names it at start-up', async () => {
    const ask = (model: string) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const refused = await ask(UNPRICED);
    const body = (await refused.json()) as { error: { code: string } };
    expect(refused.status, JSON.stringify(body)).toBe(403);
    expect(body.error.code).toBe('model_unpriced');
    expect(gemini.requests).toHaveLength(0);
    const served = await ask(PRICED);
    expect(served.status, await served.clone().text()).toBe(200);
    const warning = gw.stderr().split('\n').find((l) => l.includes('have no price'));
    expect(warning).toContain(`google/${UNPRICED}`);
    expect(warning).not.toContain(`google/${PRICED}`);
  });

  it('/v1/models shows it with pricing null; the priced one keeps its grounding price', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } });
    const models = new Map(((await res.json()) as { data: Array<{ id: string; pricing: Record<string, string> | null }> }).data.map((m) => [m.id, m.pricing]));
    expect(models.get(`google/${UNPRICED}`)).toBeNull();
    expect(models.get(`google/${PRICED}`)).toMatchObject({ prompt: '0.0000003', web_search: '0.035' });
  });

  it('gateway models ls marks it UNPRICED', async () => {
    const result = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'models', 'ls']);
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(new RegExp(`google/${UNPRICED}\\s+chat\\s+-\\s+UNPRICED`));
  });
});
