import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderRegistry } from '../../src/providers/index.ts';
import { orderCandidates, planRoute, routingConfigSchema, scheduleAttempts, type RoutingConfigInput } from '../../src/routing/index.ts';
import { mockRegistry } from './helpers.ts';

const any = () => true;
const context = (latency: Record<string, number> = {}, random = () => 0) => ({ latency: (id: string) => latency[id], random });
const ids = (models: Array<{ id: string }>) => models.map((m) => m.id);

describe('routing strategies and plans', () => {
  let registry: ProviderRegistry;
  beforeAll(async () => {
    registry = await mockRegistry({
      a: { plugin: 'mock', priority: 2, weight: 1, models: [{ id: 'chat1', pricing: { input: 3, output: 3 } }, 'other'] },
      b: { plugin: 'mock', priority: 1, weight: 3, models: [{ id: 'chat1', pricing: { input: 1, output: 1 } }] },
      c: { plugin: 'mock', priority: 3, weight: 0, models: [{ id: 'chat1' }, 'big'] },
    });
  });
  afterAll(() => registry.close());
  const chat1 = () => registry.resolve('chat1').candidates;
  const plan = (requested: string, routing: RoutingConfigInput = {}, ctx = context()) => planRoute(registry, routingConfigSchema.parse(routing), requested, any, ctx);

  it('priority: lower priority first', () => {
    expect(ids(orderCandidates(chat1(), 'priority', context()))).toEqual(['b/chat1', 'a/chat1', 'c/chat1']);
  });

  it('price: cheapest blended price first, unpriced last', () => {
    expect(ids(orderCandidates(chat1(), 'price', context()))).toEqual(['b/chat1', 'a/chat1', 'c/chat1']);
  });

  it('latency: lowest moving average first, unmeasured first of all so they get measured', () => {
    expect(ids(orderCandidates(chat1(), 'latency', context({ 'a/chat1': 50, 'b/chat1': 200, 'c/chat1': 100 })))).toEqual(['a/chat1', 'c/chat1', 'b/chat1']);
    expect(ids(orderCandidates(chat1(), 'latency', context({ 'a/chat1': 50, 'b/chat1': 200 })))[0]).toBe('c/chat1');
  });

  it('weighted: drawn by weight, zero weight last', () => {
    expect(ids(orderCandidates(chat1(), 'weighted', context({}, () => 0)))).toEqual(['a/chat1', 'b/chat1', 'c/chat1']);
    expect(ids(orderCandidates(chat1(), 'weighted', context({}, () => 0.3)))).toEqual(['b/chat1', 'a/chat1', 'c/chat1']);
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const firsts = { 'a/chat1': 0, 'b/chat1': 0, 'c/chat1': 0 } as Record<string, number>;
    for (let i = 0; i < 4000; i += 1) firsts[orderCandidates(chat1(), 'weighted', context({}, random))[0].id] += 1;
    expect(firsts['c/chat1']).toBe(0);
    expect(firsts['b/chat1'] / 4000).toBeGreaterThan(0.7);
    expect(firsts['b/chat1'] / 4000).toBeLessThan(0.8);
  });

  it('pins provider/model; auto-routes a bare id with the global or per-model strategy', () => {
    expect(plan('a/chat1')).toMatchObject({ mode: 'pinned', strategy: undefined });
    expect(ids(plan('a/chat1').primary)).toEqual(['a/chat1']);
    expect(plan('chat1')).toMatchObject({ mode: 'auto', strategy: 'priority' });
    expect(ids(plan('chat1', { strategy: 'latency' }, context({ 'b/chat1': 1, 'a/chat1': 2, 'c/chat1': 3 })).primary)).toEqual(['b/chat1', 'a/chat1', 'c/chat1']);
    expect(plan('chat1', { strategy: 'latency', models: { chat1: { strategy: 'price' } } }).strategy).toBe('price');
  });

  it('appends the explicit fallback chain, expanded, deduplicated, unknown entries skipped', () => {
    const p = plan('a/chat1', { models: { 'a/chat1': { fallbacks: ['c/big', 'chat1', 'nope', 'x/y'] } } });
    expect(ids(p.primary)).toEqual(['a/chat1']);
    expect(ids(p.chain)).toEqual(['c/big', 'b/chat1', 'c/chat1']);
    expect(ids(plan('other', { models: { other: { fallbacks: ['big'] } } }).chain)).toEqual(['c/big']);
  });

  it('throws model_not_found for unknown ids and bad_request when no candidate fits', () => {
    expect(() => plan('nope')).toThrow(expect.objectContaining({ code: 'model_not_found' }));
    expect(() => planRoute(registry, routingConfigSchema.parse({}), 'chat1', () => false, context())).toThrow(expect.objectContaining({ code: 'bad_request' }));
  });

  it('schedules a pinned model attempts times before its chain; auto rotates through candidates', () => {
    const pinned = plan('a/chat1', { models: { 'a/chat1': { fallbacks: ['b/chat1'] } } });
    expect([...scheduleAttempts(pinned, 3)].map((s) => `${s.model.id}#${s.retry}`)).toEqual(['a/chat1#0', 'a/chat1#1', 'a/chat1#2', 'b/chat1#0', 'b/chat1#1', 'b/chat1#2']);
    const auto = plan('chat1');
    expect([...scheduleAttempts(auto, 2)].map((s) => `${s.model.id}#${s.retry}`)).toEqual(['b/chat1#0', 'a/chat1#0', 'c/chat1#0', 'b/chat1#1', 'a/chat1#1', 'c/chat1#1']);
  });
});
