import { describe, expect, it } from 'vitest';
import { modelTerms } from '../../src/accounts/index.ts';
import type { CatalogModel, ProviderRegistry } from '../../src/providers/index.ts';

function model(id: string, spec: Partial<CatalogModel['spec']>): CatalogModel {
  return { id, provider: {} as CatalogModel['provider'], upstreamId: id, spec: { id, ...spec }, formats: ['chat'] } as CatalogModel;
}

/** A registry whose one bare id resolves to `candidates` (the same list every time, as the real one). */
function registryOf(candidates: CatalogModel[]): ProviderRegistry {
  return {
    resolve(requested: string) {
      if (requested !== 'm') throw new Error('not found');
      return { pinned: false, candidates };
    },
  } as unknown as ProviderRegistry;
}

describe('modelTerms (read once per candidate list)', () => {
  it('gives the same terms on every call, checks the tier on each, and reads a list again when it grew', () => {
    const candidates = [model('a/m', { pricing: { input: 1, output: 2 }, maxOutputTokens: 100, minTier: 'basic' })];
    const registry = registryOf(candidates);
    const first = modelTerms(registry, 'm', 'pro');
    expect(first).toEqual({ pricing: expect.objectContaining({ input: 1, output: 2 }), maxOutputTokens: 100, unpriced: undefined });
    expect(modelTerms(registry, 'm', 'enterprise')).toBe(first);
    expect(() => modelTerms(registry, 'm', 'free')).toThrow(expect.objectContaining({ code: 'model_tier_restricted' }));

    candidates.push(model('b/m', { maxOutputTokens: 300, minTier: 'pro' }));
    const grown = modelTerms(registry, 'm', 'pro');
    expect(grown).toEqual({ pricing: expect.objectContaining({ input: 1, output: 2 }), maxOutputTokens: 300, unpriced: 'b/m' });
    expect(() => modelTerms(registry, 'm', 'basic')).toThrow(expect.objectContaining({ code: 'model_tier_restricted' }));
  });

  it('gives no terms for no model or an unknown one', () => {
    const registry = registryOf([]);
    expect(modelTerms(registry, undefined, 'pro')).toEqual({ pricing: undefined, maxOutputTokens: undefined });
    expect(modelTerms(registry, 'unknown', 'pro')).toEqual({ pricing: undefined, maxOutputTokens: undefined });
  });
});
