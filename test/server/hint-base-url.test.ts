import { describe, expect, it } from 'vitest';
import { suggestBaseUrl } from '../../src/server/hint-base-url.ts';

const KNOWN = [
  { method: 'POST', pattern: /^\/v1\/messages$/ },
  { method: 'POST', pattern: /^\/v1\/chat\/completions$/ },
  { method: 'GET', pattern: /^\/v1\/models$/ },
  { method: 'POST', pattern: /^\/v1beta\/models\/(.+):streamGenerateContent$/ },
];
const ORIGIN = 'http://127.0.0.1:8787';

describe('suggestBaseUrl (spec §5 rule 5)', () => {
  it('names the route and the base URL when /v1 is doubled or missing', () => {
    expect(suggestBaseUrl('POST', '/v1/v1/messages', ORIGIN, KNOWN)).toMatchObject({ path: '/v1/messages', hint: expect.stringContaining(`take the base URL ${ORIGIN};`) });
    expect(suggestBaseUrl('POST', '/v1/v1beta/models/g/gemini:streamGenerateContent', ORIGIN, KNOWN)?.path).toBe('/v1beta/models/g/gemini:streamGenerateContent');
    expect(suggestBaseUrl('POST', '/chat/completions', ORIGIN, KNOWN)).toMatchObject({ path: '/v1/chat/completions', hint: expect.stringContaining(`${ORIGIN}/v1`) });
    expect(suggestBaseUrl('GET', '/models', ORIGIN, KNOWN)?.path).toBe('/v1/models');
  });

  it('suggests nothing when neither fixes the path or the method differs', () => {
    expect(suggestBaseUrl('POST', '/v1/no/such', ORIGIN, KNOWN)).toBeUndefined();
    expect(suggestBaseUrl('GET', '/v1/v1/messages', ORIGIN, KNOWN)).toBeUndefined();
    expect(suggestBaseUrl('POST', '/elsewhere', ORIGIN, KNOWN)).toBeUndefined();
  });
});
