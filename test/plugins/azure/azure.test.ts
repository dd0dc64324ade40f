import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { azurePath } from '../../../plugins/azure/index.ts';
import { getCodec } from '../../../src/formats/index.ts';
import { upstreamError } from '../../../src/upstream/index.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/azure');

describe('azure: where each call goes', () => {
  it('v1: /openai/v1/{endpoint}, an api-version only when configured', () => {
    expect(azurePath({ apiPath: 'v1' }, '/chat/completions', 'prod-gpt41')).toBe('/openai/v1/chat/completions');
    expect(azurePath({ apiPath: 'v1', apiVersion: 'preview' }, '/responses', 'prod-gpt41')).toBe('/openai/v1/responses?api-version=preview');
  });

  it('deployments: the deployment in the path (encoded), Responses at /openai/responses, always an api-version', () => {
    expect(azurePath({ apiPath: 'deployments', apiVersion: '2024-10-21' }, '/chat/completions', 'gpt 4.1/x')).toBe('/openai/deployments/gpt%204.1%2Fx/chat/completions?api-version=2024-10-21');
    expect(azurePath({ apiPath: 'deployments' }, '/images/generations', 'dalle')).toBe('/openai/deployments/dalle/images/generations?api-version=2025-04-01-preview');
    expect(azurePath({ apiPath: 'deployments', apiVersion: '2025-04-01-preview' }, '/responses', 'prod-gpt41')).toBe('/openai/responses?api-version=2025-04-01-preview');
  });
});

describe("azure: a prompt refused by Azure's content filter (recorded body)", () => {
  const body = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'prompt-filtered.json'), 'utf8')) as unknown;

  it('reads as content_filter with its categories, for a Chat or a Responses upstream', () => {
    for (const format of ['chat', 'responses'] as const) {
      const said = getCodec(format).decodeError(400, body);
      const error = upstreamError('azure', { ...said, status: 400, phase: 'response' });
      expect(error.code).toBe('content_filter');
      expect(error.status).toBe(400);
      expect(error.message).toContain("Azure OpenAI's content management policy");
      expect(error.details).toMatchObject({ provider: 'azure', upstream_status: 400, content_filter_result: { violence: { filtered: true, severity: 'medium' } } });
    }
  });
});
