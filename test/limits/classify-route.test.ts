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

describe('isExemptRoute', () => {
  const CASES: Array<[string, string, boolean]> = [
    ['GET', '/v1/models', true],
    ['POST', '/v1/models', false],
    ['get', '/v1/models/gpt-4o', true],
    ['HEAD', '/healthz', true],
    ['POST', '/healthz', false],
    ['OPTIONS', '/v1/chat/completions', true],
    ['POST', '/v1/chat/completions', false],
    ['POST', '/v1/messages/batches', true],
    ['GET', '/v1/files/file-1', true],
    ['POST', '/v1/files', false],
    ['DELETE', '/v1/files/file-1', true],
    ['PUT', '/v1/media/x', true],
  ];

  it('answers by method and path, the same when asked again, and after a flood of made-up paths and methods', () => {
    const ask = () => CASES.map(([method, path]) => isExemptRoute(method, path));
    const expected = CASES.map(([, , exempt]) => exempt);
    expect(ask()).toEqual(expected);
    expect(ask()).toEqual(expected);
    for (let i = 0; i < 600; i++) {
      expect(isExemptRoute('POST', `/v1/made-up/${i}`)).toBe(false);
      expect(isExemptRoute(`M${i}`, '/healthz')).toBe(false);
    }
    expect(ask()).toEqual(expected);
  });
});
