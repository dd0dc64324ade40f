import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runChat } from '../../src/pipeline/run-chat.ts';
import type { ChatExchange, ChatOutcome, Settlement } from '../../src/pipeline/types.ts';
import type { ProviderRegistry } from '../../src/providers/index.ts';
import { Router, routingConfigSchema, type RoutingConfigInput } from '../../src/routing/index.ts';
import { startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { chatStream } from '../helpers/routing-wire.ts';
import { until } from '../helpers/until.ts';
import { mockRegistry } from '../routing/helpers.ts';

function exchange(body: Record<string, unknown>, signal = new AbortController().signal, gatewayEvents?: string): ChatExchange {
  const full = { messages: [{ role: 'user', content: 'hello there' }], ...body };
  return { format: 'chat', raw: JSON.stringify(full), body: full, forwardHeaders: {}, signal, ids: { requestId: 'req_1', correlationId: 'req_1' }, gatewayEvents };
}

async function drain(outcome: ChatOutcome): Promise<string> {
  let text = '';
  for await (const chunk of outcome.stream ?? []) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return text;
}

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('runChat routing (in process)', () => {
  const registries: ProviderRegistry[] = [];
  const track = (r: ProviderRegistry) => (registries.push(r), r);
  afterAll(async () => {
    for (const r of registries) await r.close();
  });

  const setup = async (providers: Parameters<typeof mockRegistry>[0], routing: RoutingConfigInput = {}, now = clock()) => {
    const registry = track(await mockRegistry(providers));
    const router = new Router(registry, routingConfigSchema.parse(routing), { now: now.now, random: () => 0 });
    return { registry, router, deps: { registry, router, defaultMaxTokens: 1024 }, now };
  };

  it('falls back offline with the mock plugin and puts the discount on the settlement', async () => {
    const { deps } = await setup(
      { a: { plugin: 'mock', priority: 1, failFirst: 1, failStatus: 503 }, b: { plugin: 'mock', priority: 2 } },
      { fallbackDiscount: 0.2 },
    );
    const outcome = await runChat(deps, exchange({ model: 'echo' }));
    expect(outcome.headers['x-fallback-provider']).toBe('b');
    const settlement = await outcome.settled;
    expect(settlement.fallback).toEqual({ provider: 'b', model: 'b/echo', from: 'a/echo', reason: 'provider_unavailable', discount: 0.2 });
    expect(settlement.routing).toEqual({ mode: 'auto', strategy: 'priority', requested: 'echo', resolved: 'b/echo', attempts: 2 });
    const again = await runChat(deps, exchange({ model: 'echo' }));
    expect(again.headers['x-routing-resolved-model']).toBe('a/echo');
    expect((await again.settled).fallback).toBeUndefined();
  });

  it('a request for a model of another type says what the model is (before: "cannot serve this request")', async () => {
    const { deps } = await setup({ a: { plugin: 'mock' } });
    await expect(runChat(deps, exchange({ model: 'a/image' }))).rejects.toMatchObject({ code: 'bad_request', message: "The model 'a/image' is not a chat model (it is an image_generation model).", details: { model: 'a/image' } });
    await expect(runChat(deps, exchange({ model: 'a/video' }))).rejects.toMatchObject({ message: "The model 'a/video' is not a chat model (it is a video_generation model)." });
  });

  it('a per-model discount overrides the global one', async () => {
    const { deps } = await setup(
      { a: { plugin: 'mock', priority: 1, failFirst: 1 }, b: { plugin: 'mock', priority: 2 } },
      { models: { echo: { fallbackDiscount: 0.5 } } },
    );
    const outcome = await runChat(deps, exchange({ model: 'echo', stream: true }));
    await drain(outcome);
    expect((await outcome.settled).fallback?.discount).toBe(0.5);
    expect(outcome.headers['x-fallback-discount']).toBe('0.5');
  });

  it('falls back along an explicit chain to a different model', async () => {
    const { deps } = await setup(
      { a: { plugin: 'mock', failFirst: 1, failStatus: 500, models: ['echo'] }, b: { plugin: 'mock', models: ['echo-mini'] } },
      { models: { 'a/echo': { fallbacks: ['echo-mini'] } }, retry: { attempts: 1 } },
    );
    const outcome = await runChat(deps, exchange({ model: 'a/echo' }));
    expect(outcome.headers).toMatchObject({ 'x-routing-mode': 'pinned', 'x-routing-resolved-model': 'b/echo-mini', 'x-fallback-reason': 'provider_error' });
  });

  describe('against a fake upstream', () => {
    let bad: FakeUpstream;
    let good: FakeUpstream;
    let badReply: () => FakeReply;
    beforeAll(async () => {
      bad = await startFakeUpstream(() => badReply());
      good = await startFakeUpstream(() => ({ sse: chatStream(['Hel', 'lo']) }));
    });
    afterEach(() => {
      bad.requests.length = 0;
      good.requests.length = 0;
    });
    afterAll(async () => {
      await bad.close();
      await good.close();
    });
    const providers = (timeouts = {}) => ({
      a: { plugin: 'openai', baseURL: `${bad.url}/v1`, apiKey: 'x', models: ['m1'], priority: 1, timeouts },
      b: { plugin: 'openai', baseURL: `${good.url}/v1`, apiKey: 'x', models: ['m1'], priority: 2 },
    });
    const unavailable = (): FakeReply => ({ status: 503, json: { error: { message: 'down' } } });

    it('opens the circuit after N consecutive failures, skips it, probes it after the cooldown', async () => {
      badReply = unavailable;
      const { deps, now } = await setup(providers(), { breaker: { failureThreshold: 2, cooldownMs: 10_000 } });
      const serve = async () => {
        const outcome = await runChat(deps, exchange({ model: 'm1', stream: true }));
        await drain(outcome);
        return outcome.headers;
      };
      expect((await serve())['x-fallback-used']).toBe('true');
      expect((await serve())['x-fallback-used']).toBe('true');
      expect(bad.requests).toHaveLength(2);
      const skipped = await serve();
      expect(skipped['x-fallback-used']).toBeUndefined(); // nothing failed in this request
      expect(skipped['x-routing-attempts']).toBe('1');
      expect(bad.requests).toHaveLength(2);
      now.advance(10_000);
      expect((await serve())['x-fallback-used']).toBe('true'); // the half-open probe failed
      expect(bad.requests).toHaveLength(3);
      await serve();
      expect(bad.requests).toHaveLength(3); // open again for a full cooldown
      now.advance(10_000);
      badReply = () => ({ sse: chatStream(['ok']) });
      expect((await serve())['x-routing-resolved-model']).toBe('a/m1'); // probe succeeded: closed
      await serve();
      expect(bad.requests).toHaveLength(5);
    });

    it('sheds a pinned model whose circuit is open (no call), then probes it after the cooldown', async () => {
      badReply = unavailable;
      const { deps, router, now } = await setup(providers(), { breaker: { failureThreshold: 1, cooldownMs: 10_000 }, retry: { attempts: 1 } });
      await expect(runChat(deps, exchange({ model: 'a/m1' }))).rejects.toMatchObject({ code: 'provider_unavailable' });
      expect(router.breaker.state('a/m1')).toBe('open');
      now.advance(4_000);
      const error = await runChat(deps, exchange({ model: 'a/m1' })).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'provider_unavailable', retryAfter: 6, headers: { 'x-routing-mode': 'pinned', 'x-routing-attempts': '0' } });
      expect(bad.requests).toHaveLength(1);
      now.advance(6_000);
      await expect(runChat(deps, exchange({ model: 'a/m1' }))).rejects.toMatchObject({ code: 'provider_unavailable', headers: { 'x-routing-attempts': '1' } });
      expect(bad.requests).toHaveLength(2); // the half-open probe went through
    });

    it('auto routing tries the least recently failed candidate when every circuit is open', async () => {
      badReply = unavailable;
      const { deps, router } = await setup({ a: providers().a }, { breaker: { failureThreshold: 1 }, retry: { attempts: 1 } });
      await expect(runChat(deps, exchange({ model: 'm1' }))).rejects.toMatchObject({ code: 'provider_unavailable' });
      expect(router.breaker.state('a/m1')).toBe('open');
      const error = await runChat(deps, exchange({ model: 'm1' })).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'provider_unavailable', headers: { 'x-routing-mode': 'auto', 'x-routing-attempts': '1' } });
      expect(bad.requests).toHaveLength(2);
    });

    it('orders by observed latency once measured', async () => {
      badReply = () => ({ delayMs: 400, then: { sse: chatStream(['slow']) } });
      const { deps } = await setup(providers(), { strategy: 'latency' }, { now: Date.now, advance: () => 0 });
      const resolved: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const outcome = await runChat(deps, exchange({ model: 'm1', stream: true }));
        await drain(outcome);
        resolved.push(outcome.headers['x-routing-resolved-model']);
      }
      // a unmeasured first, then b unmeasured, then the faster one (b) from then on
      expect(resolved).toEqual(['a/m1', 'b/m1', 'b/m1', 'b/m1']);
    });

    it('stops retrying when the time budget is spent', async () => {
      badReply = () => ({ delayMs: 120, then: unavailable() });
      const { deps } = await setup(providers(), { retry: { attempts: 10, baseMs: 1, budgetMs: 300 } }, { now: Date.now, advance: () => 0 });
      const started = Date.now();
      await expect(runChat(deps, exchange({ model: 'a/m1' }))).rejects.toMatchObject({ code: 'provider_unavailable' });
      expect(Date.now() - started).toBeLessThan(700);
      expect(bad.requests.length).toBeGreaterThanOrEqual(2);
      expect(bad.requests.length).toBeLessThanOrEqual(4);
    });

    it('meters an aborted stream: settlement aborted with estimated usage, upstream released', async () => {
      badReply = () => ({ sse: chatStream(Array.from({ length: 100 }, () => 'word ')), delayMs: 10 });
      const { deps } = await setup(providers());
      const controller = new AbortController();
      const outcome = await runChat(deps, exchange({ model: 'a/m1', stream: true }, controller.signal));
      let seen = 0;
      for await (const chunk of outcome.stream!) {
        void chunk;
        seen += 1;
        if (seen === 5) controller.abort();
      }
      const settlement: Settlement = await outcome.settled;
      expect(settlement.aborted).toBe(true);
      expect(settlement.estimated).toBe(true);
      expect(settlement.usage.inputTokens).toBeGreaterThan(0);
      expect(settlement.usage.outputTokens).toBeGreaterThan(0);
      expect(settlement.routing?.resolved).toBe('a/m1');
    });

    it('counts a stream that breaks mid-way against the circuit', async () => {
      badReply = () => ({ sse: chatStream(['Hel', 'lo']).slice(0, 2), stall: true });
      const { deps, router } = await setup(providers({ idle: 200 }), { breaker: { failureThreshold: 1 } });
      const outcome = await runChat(deps, exchange({ model: 'm1', stream: true }));
      expect(await drain(outcome)).toContain('provider_timeout');
      expect((await outcome.settled).estimated).toBe(true);
      expect(router.breaker.state('a/m1')).toBe('open');
    });

    it('hedges: a second call after the delay, the first answer wins, the loser is aborted', async () => {
      badReply = () => ({ delayMs: 400, then: { sse: chatStream(['slow']) } });
      const { deps, router } = await setup(providers(), { models: { m1: { hedge: { delayMs: 50 } } } }, { now: Date.now, advance: () => 0 });
      bad.closedAt.length = 0;
      const outcome = await runChat(deps, exchange({ model: 'm1', stream: true }));
      // b, asked 50 ms after a, answered first: a's 400 ms were not waited for.
      expect(outcome.headers).toMatchObject({ 'x-routing-resolved-model': 'b/m1', 'x-routing-attempts': '2' });
      expect(outcome.headers['x-fallback-used']).toBeUndefined(); // a was slow, not failed
      expect(await drain(outcome)).toContain('Hel');
      await until("the loser's connection to be closed", async () => (bad.closedAt.length > 0 ? true : undefined));
      expect(bad.closedAt.length).toBe(1);
      expect(router.breaker.failures('a/m1')).toBe(0);
    });

    it('hedges: no second call when the first answers before the delay', async () => {
      badReply = () => ({ sse: chatStream(['fast']) });
      const { deps } = await setup(providers(), { models: { m1: { hedge: { delayMs: 200 } } } });
      const outcome = await runChat(deps, exchange({ model: 'm1', stream: true }));
      await drain(outcome);
      expect(outcome.headers['x-routing-resolved-model']).toBe('a/m1');
      expect(good.requests).toHaveLength(0);
    });

    it('hedges a pinned model on its own provider and falls through when the first fails early', async () => {
      let calls = 0;
      badReply = () => (++calls === 1 ? { delayMs: 400, then: { sse: chatStream(['slow']) } } : { sse: chatStream(['second']) });
      const pinned = await setup(providers(), { models: { 'a/m1': { hedge: { delayMs: 50 } } } });
      const outcome = await runChat(pinned.deps, exchange({ model: 'a/m1', stream: true }));
      expect(await drain(outcome)).toContain('second');
      expect(bad.requests).toHaveLength(2);
      expect(good.requests).toHaveLength(0);
      badReply = unavailable;
      const early = await setup(providers(), { models: { m1: { hedge: { delayMs: 1000 } } } });
      const started = Date.now();
      const fallback = await runChat(early.deps, exchange({ model: 'm1', stream: true }));
      await drain(fallback);
      expect(Date.now() - started).toBeLessThan(500);
      expect(fallback.headers).toMatchObject({ 'x-fallback-used': 'true', 'x-fallback-reason': 'provider_unavailable' });
    });

    it('sends events only when asked (opt-in), always, or never', async () => {
      badReply = () => ({ sse: chatStream(['x']) });
      const opt = await setup(providers());
      expect(await drain(await runChat(opt.deps, exchange({ model: 'm1', stream: true })))).not.toContain('event: routing');
      expect(await drain(await runChat(opt.deps, exchange({ model: 'm1', stream: true }, undefined, 'routing')))).toContain('event: routing');
      const always = await setup(providers(), { events: 'always' });
      expect(await drain(await runChat(always.deps, exchange({ model: 'm1', stream: true })))).toContain('event: routing');
      expect(await drain(await runChat(always.deps, exchange({ model: 'm1', stream: true }, undefined, 'none')))).not.toContain('event: routing');
      const off = await setup(providers(), { events: 'off' });
      expect(await drain(await runChat(off.deps, exchange({ model: 'm1', stream: true }, undefined, 'routing')))).not.toContain('event: routing');
    });
  });
});
