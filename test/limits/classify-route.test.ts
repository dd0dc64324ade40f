import { describe, expect, it } from 'vitest';
import { isExemptRoute, isGenerationRoute, normalizePath } from '../../src/limits/classify-route.ts';

describe('normalizePath', () => {
  it('strips the query, the fragment and trailing slashes; a clean pattern comes back as it is', () => {
    expect(normalizePath('/v1/chat/completions')).toBe('/v1/chat/completions');
    expect(normalizePath('/v1/models/')).toBe('/v1/models');
    expect(normalizePath('/v1/models//')).toBe('/v1/models');
    expect(normalizePath('/v1/models?limit=2')).toBe('/v1/models');
    expect(normalizePath('/v1/models/#x')).toBe('/v1/models');
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('')).toBe('/');
    expect(normalizePath('?x')).toBe('/');
    expect(isGenerationRoute('post', '/v1/chat/completions/')).toBe(true);
    expect(isExemptRoute('GET', '/v1/models?x=1')).toBe(true);
  });
});
