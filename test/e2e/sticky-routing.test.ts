/**
 * Sticky routing for prompt caches (issue 24): two equal providers (weighted, same weight) serve
 * one model; each fake has its own prompt cache — a turn hits when the same provider served the
 * conversation's previous turn. Several conversations with a `prompt_cache_key` each run with
 * `routing.sticky` off and on; the provider-side cache-hit share is measured and printed.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

const SESSIONS = 6;
const TURNS = 8;

/** The conversation so far is what a provider caches; the request before this one left it cached. */
const cacheKey = (body: Record<string, any>) => ({ lookup: JSON.stringify(body.messages.slice(0, -2)), store: JSON.stringify(body.messages) });

describe('sticky routing keeps a session on the provider holding its prompt cache', () => {
  const running: Array<{ close(): Promise<unknown> } | SpawnedGateway> = [];
  afterEach(async () => {
    for (const item of running.splice(0)) await ('stop' in item ? item.stop() : item.close());
  });

  /** Runs SESSIONS conversations of TURNS turns; returns the share of turns after the first that hit a provider's cache. */
  async function cacheHitShare(sticky: boolean): Promise<{ share: number; perProvider: number[] }> {
    const fakes: StrictFake[] = [];
    for (let i = 0; i < 2; i++) fakes.push(await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, cacheKey, finalText: 'ok' }));
    running.push(...fakes);
    const gw = await spawnGateway({
      config: {
        routing: { strategy: 'weighted', sticky: { enabled: sticky } },
        providers: Object.fromEntries(fakes.map((fake, i) => [`p${i}`, { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'x', weight: 1, models: ['gpt-4o-mini'] }])),
      },
    });
    running.push(gw);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
    for (let s = 0; s < SESSIONS; s++) {
      const messages: OpenAI.ChatCompletionMessageParam[] = [];
      for (let t = 0; t < TURNS; t++) {
        messages.push({ role: 'user', content: `session ${s} turn ${t}` });
        const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, prompt_cache_key: `session-${s}` });
        messages.push({ role: 'assistant', content: answer.choices[0].message.content ?? '' });
      }
    }
    const hits = fakes.reduce((sum, fake) => sum + fake.cacheHits, 0);
    return { share: hits / (SESSIONS * (TURNS - 1)), perProvider: fakes.map((fake) => fake.requests.length) };
  }

  it('measures the cache-hit share with sticky routing off and on', async () => {
    const off = await cacheHitShare(false);
    const on = await cacheHitShare(true);
    console.log(`prompt-cache hit share over ${SESSIONS}×${TURNS - 1} cacheable turns: sticky off ${(off.share * 100).toFixed(0)}% (requests per provider ${off.perProvider.join('/')}), sticky on ${(on.share * 100).toFixed(0)}% (${on.perProvider.join('/')})`);
    // With the default on, every turn after a session's first reaches the provider that cached it.
    expect(on.share).toBe(1);
    // Off, each turn lands on either provider: about half hit (a 42-turn sample stays well below 90%).
    expect(off.share).toBeLessThan(0.9);
  });
});
