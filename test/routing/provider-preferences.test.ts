import { describe, expect, it } from 'vitest';
import { applyProviderPreferences, readProviderPreferences, type RoutePlan } from '../../src/routing/index.ts';

const model = (provider: string) => ({ id: `${provider}/m`, provider: { id: provider } }) as unknown as RoutePlan['primary'][number];
const ids = (plan: RoutePlan) => ({ primary: plan.primary.map((m) => m.id), chain: plan.chain.map((m) => m.id) });
const plan: RoutePlan = { mode: 'auto', requested: 'm', primary: [model('a'), model('b')], chain: [model('c')] };
const providers = ['a', 'b', 'c', 'D'];

describe("OpenRouter's provider preferences over a route plan", () => {
  it('reads only, ignore and order as lower-cased names, allow_fallbacks only beside order; anything else is not a preference', () => {
    expect(readProviderPreferences({ only: ['A', 3, ''], ignore: 'b', order: [], allow_fallbacks: false, sort: 'price' })).toEqual({ only: ['a'] });
    expect(readProviderPreferences({ order: ['B'], allow_fallbacks: false })).toEqual({ order: ['b'], allowFallbacks: false });
    expect(readProviderPreferences({ data_collection: 'deny' })).toBeUndefined();
    expect(readProviderPreferences(['a'])).toBeUndefined();
    expect(readProviderPreferences({ ignore: [...Array.from({ length: 40 }, (_, i) => `slug${i}`), 'up'] })?.ignore).toContain('up');
    expect(readProviderPreferences({ only: Array.from({ length: 1000 }, (_, i) => `p${i}`) })?.only).toHaveLength(256);
  });

  it('ignore drops providers; a primary left empty takes the chain, now the client\'s pick', () => {
    expect(ids(applyProviderPreferences(plan, { ignore: ['a'] }, providers))).toEqual({ primary: ['b/m'], chain: ['c/m'] });
    expect(ids(applyProviderPreferences(plan, { ignore: ['a', 'b'] }, providers))).toEqual({ primary: ['c/m'], chain: [] });
  });

  it('order puts the named first among the model\'s providers and among the fallbacks apart (a fallback never before the model asked for); allow_fallbacks false keeps only them; only keeps only its own', () => {
    expect(ids(applyProviderPreferences(plan, { order: ['c', 'b'] }, providers))).toEqual({ primary: ['b/m', 'a/m'], chain: ['c/m'] });
    const withFallback: RoutePlan = { mode: 'auto', requested: 'gpt', primary: [{ id: 'a/gpt', provider: { id: 'a' } } as never], chain: [{ id: 'c/small', provider: { id: 'c' } } as never] };
    expect(ids(applyProviderPreferences(withFallback, { order: ['c'] }, providers))).toEqual({ primary: ['a/gpt'], chain: ['c/small'] });
    expect(ids(applyProviderPreferences(plan, { order: ['b'], allowFallbacks: false }, providers))).toEqual({ primary: ['b/m'], chain: [] });
    expect(ids(applyProviderPreferences(plan, { only: ['b', 'c'] }, providers))).toEqual({ primary: ['b/m'], chain: ['c/m'] });
  });

  it('names of no provider here are left alone; a provider here that does not serve the model rules everything out: 404', () => {
    expect(ids(applyProviderPreferences(plan, { only: ['deepinfra'], order: ['together'] }, providers))).toEqual(ids(plan));
    expect(() => applyProviderPreferences(plan, { only: ['d'] }, providers)).toThrow(/provider preferences \(only: d\); it is served by a, b, c/);
  });
});
