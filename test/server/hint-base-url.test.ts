import { describe, expect, it } from 'vitest';
import { suggestBaseUrl } from '../../src/server/hint-base-url.ts';

const KNOWN = [
  { method: 'POST', pattern: /^\/v1\/messages$/ },
  { method: 'POST', pattern: /^\/v1\/chat\/completions$/ },
  { method: 'GET', pattern: /^\/v1\/models$/ },
  { method: 'POST', pattern: /^\/v1beta\/models\/(.+):streamGenerateContent$/ },
];
const BROAD = [{ method: 'POST', pattern: /^\/v1beta1\/projects\/.*\/?$/ }];
const ORIGIN = 'http://127.0.0.1:8787';

describe('suggestBaseUrl (spec §5 rule 5)', () => {
  it('names the route and the base URL when /v1 is doubled or missing', () => {
    expect(suggestBaseUrl('POST', '/v1/v1/messages', ORIGIN, KNOWN)).toMatchObject({ path: '/v1/messages', hint: expect.stringContaining(`take the base URL ${ORIGIN};`) });
    expect(suggestBaseUrl('POST', '/v1/v1beta/models/g/gemini:streamGenerateContent', ORIGIN, KNOWN)?.path).toBe('/v1beta/models/g/gemini:streamGenerateContent');
    expect(suggestBaseUrl('POST', '/chat/completions', ORIGIN, KNOWN)).toMatchObject({ path: '/v1/chat/completions', hint: expect.stringContaining(`${ORIGIN}/v1`) });
    expect(suggestBaseUrl('GET', '/models', ORIGIN, KNOWN)?.path).toBe('/v1/models');
  });

  // Vertex AI's roots are broad routes (any path below them is the Gemini face's): @google/genai in Vertex mode given
  // host/v1 or host/v1beta1 asked /v1/v1beta1/… or /v1beta1/v1beta1/… and got a bare "No route".
  it('names the base URL for a Vertex path with its version once too often, matched by a broad route', () => {
    const vertex = '/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent';
    expect(suggestBaseUrl('POST', `/v1${vertex}`, ORIGIN, KNOWN, BROAD)).toMatchObject({ path: vertex, hint: expect.stringContaining(`take the base URL ${ORIGIN};`) });
    expect(suggestBaseUrl('POST', `/v1beta1${vertex}`, ORIGIN, KNOWN, BROAD)).toMatchObject({ path: vertex, hint: expect.stringContaining(`Vertex mode adds /v1beta1 itself and takes the base URL ${ORIGIN}.`) });
    expect(suggestBaseUrl('POST', `/v1${vertex}`, ORIGIN, KNOWN)).toBeUndefined();
    // A broad route is no reason to add /v1 to a path: any path below its root would match.
    expect(suggestBaseUrl('POST', '/projects/p/anything', ORIGIN, KNOWN, [{ method: 'POST', pattern: /^\/v1\/projects\/.*\/?$/ }])).toBeUndefined();
  });

  it("names the publisher path for a Vertex model named models/… (the SDK sends it as a tuned model's path)", () => {
    const broad = [...BROAD, { method: 'POST', pattern: /^\/v1beta1\/publishers\/.*\/?$/ }];
    expect(suggestBaseUrl('POST', '/v1beta1/projects/p/locations/global/models/mock/echo:generateContent', ORIGIN, KNOWN, broad)).toMatchObject({
      path: '/v1beta1/projects/p/locations/global/publishers/mock/models/echo:generateContent',
      hint: expect.stringContaining("name it without models/ ('mock/echo'), which it sends as publishers/mock/models/echo."),
    });
    expect(suggestBaseUrl('POST', '/v1beta1/models/gemini-2.5-flash:countTokens', ORIGIN, KNOWN, broad)?.path).toBe('/v1beta1/publishers/google/models/gemini-2.5-flash:countTokens');
    // Only where a route serves the publisher path.
    expect(suggestBaseUrl('POST', '/v1beta1/models/gemini-2.5-flash:countTokens', ORIGIN, KNOWN, BROAD)).toBeUndefined();
  });

  it("names Gemini's versions for apiVersion 'v1alpha'", () => {
    expect(suggestBaseUrl('POST', '/v1alpha/models/g/gemini:streamGenerateContent', ORIGIN, KNOWN)).toMatchObject({
      path: '/v1beta/models/g/gemini:streamGenerateContent',
      hint: expect.stringContaining('not v1alpha: leave httpOptions.apiVersion unset'),
    });
    expect(suggestBaseUrl('GET', '/v1alpha/models', ORIGIN, [...KNOWN, { method: 'GET', pattern: /^\/v1beta\/models$/ }])?.path).toBe('/v1beta/models');
    expect(suggestBaseUrl('POST', '/v1alpha/cachedContents', ORIGIN, KNOWN)).toBeUndefined();
  });

  it("names the route when the path has a doubled slash (a base URL ending in '/')", () => {
    expect(suggestBaseUrl('GET', '//v1/models', ORIGIN, KNOWN)).toMatchObject({ path: '/v1/models', hint: expect.stringContaining("base URL probably ends in '/'") });
    expect(suggestBaseUrl('POST', '/v1//chat/completions', ORIGIN, KNOWN)?.path).toBe('/v1/chat/completions');
    expect(suggestBaseUrl('POST', '//v1beta1/projects/p/x:generateContent', ORIGIN, KNOWN, BROAD)?.path).toBe('/v1beta1/projects/p/x:generateContent');
    expect(suggestBaseUrl('GET', '//v1/no/such', ORIGIN, KNOWN)).toBeUndefined();
    expect(suggestBaseUrl('POST', '//v1/models', ORIGIN, KNOWN)).toBeUndefined();
  });

  it("names /v1 for OpenRouter's /api/v1 (a client moved from OpenRouter with only the host changed)", () => {
    expect(suggestBaseUrl('POST', '/api/v1/chat/completions', ORIGIN, KNOWN)).toMatchObject({ path: '/v1/chat/completions', hint: expect.stringContaining(`base URL ${ORIGIN}/v1.`) });
    expect(suggestBaseUrl('GET', '/api/v1/models', ORIGIN, KNOWN)?.path).toBe('/v1/models');
    expect(suggestBaseUrl('GET', '/api/v1/nothing', ORIGIN, KNOWN)).toBeUndefined();
    // The Anthropic SDK (Claude Code) given OpenRouter's host/api adds /v1 itself: its base URL is the root.
    expect(suggestBaseUrl('POST', '/api/v1/messages', ORIGIN, KNOWN)).toMatchObject({ path: '/v1/messages', hint: expect.stringContaining(`takes the base URL ${ORIGIN}.`) });
  });

  it('suggests nothing when neither fixes the path or the method differs', () => {
    expect(suggestBaseUrl('POST', '/v1/no/such', ORIGIN, KNOWN)).toBeUndefined();
    expect(suggestBaseUrl('GET', '/v1/v1/messages', ORIGIN, KNOWN)).toBeUndefined();
    expect(suggestBaseUrl('POST', '/elsewhere', ORIGIN, KNOWN)).toBeUndefined();
  });
});
