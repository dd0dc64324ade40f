import { describe, expect, it } from 'vitest';
import { googlePaths, upstreamOrigin, vertexHost } from '../../../plugins/google/endpoints.ts';
import { parseGoogleOptions } from '../../../plugins/google/options.ts';

describe('google plugin: hosts and paths', () => {
  it('picks the Vertex host of a region, a multi-region and global', () => {
    expect(vertexHost('us-central1')).toBe('https://us-central1-aiplatform.googleapis.com');
    expect(vertexHost('europe-west4')).toBe('https://europe-west4-aiplatform.googleapis.com');
    expect(vertexHost('global')).toBe('https://aiplatform.googleapis.com');
    expect(vertexHost('eu')).toBe('https://aiplatform.eu.rep.googleapis.com');
    expect(upstreamOrigin(parseGoogleOptions({}), undefined)).toBe('https://generativelanguage.googleapis.com');
    expect(upstreamOrigin(parseGoogleOptions({ api: 'vertex' }), undefined)).toBe('https://aiplatform.googleapis.com');
    expect(upstreamOrigin(parseGoogleOptions({ api: 'vertex', location: 'us-east5' }), 'http://127.0.0.1:9/')).toBe('http://127.0.0.1:9');
  });

  it('AI Studio: /v1beta/models/{m}:method, streams with alt=sse', () => {
    const paths = googlePaths(parseGoogleOptions({ api: 'gemini' }), undefined);
    expect(paths.gemini('gemini-2.5-flash', false)).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(paths.gemini('gemini-2.5-flash', true)).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(paths.geminiCount('gemini-2.5-flash')).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(() => paths.claude('claude-x', false)).toThrow(/Vertex/);
  });

  it('Vertex: project and location in the path; Claude under publishers/anthropic with its @date', () => {
    const paths = googlePaths(parseGoogleOptions({ api: 'vertex', location: 'us-east5' }), 'my-proj');
    const base = '/v1/projects/my-proj/locations/us-east5/publishers';
    expect(paths.gemini('gemini-2.5-pro', true)).toBe(`${base}/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse`);
    expect(paths.geminiCount('gemini-2.5-pro')).toBe(`${base}/google/models/gemini-2.5-pro:countTokens`);
    expect(paths.claude('claude-sonnet-4-5@20250929', false)).toBe(`${base}/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
    expect(paths.claude('claude-sonnet-4-5@20250929', true)).toBe(`${base}/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict`);
    expect(paths.claudeCount()).toBe(`${base}/anthropic/models/count-tokens:rawPredict`);
    expect(paths.gemini('a/../b', false)).toBe(`${base}/google/models/a%2F..%2Fb:generateContent`);
  });

  it('refuses options that do not fit the api, naming the key and never a value', () => {
    expect(() => parseGoogleOptions({ api: 'bedrock' })).toThrow(/api must be/);
    expect(() => parseGoogleOptions({ project: 'p' })).toThrow(/api: 'vertex'/);
    expect(() => parseGoogleOptions({ api: 'vertex', location: 'us-central1/../x' })).toThrow(/location/);
    expect(() => parseGoogleOptions({ api: 'vertex', credentials: 42 })).toThrow(/credentials must be/);
    expect(() => parseGoogleOptions({ api: 'vertex', accessToken: '' })).toThrow(/accessToken/);
  });
});
