/**
 * A converted token count on a model served under a deployment name (`{id, deployment}`): the body
 * the upstream counts is written for the model the entry is (its `id`, or `baseModel`), as the
 * inference request is, not for the deployment name. A Responses client counting on Gemini 3 Pro
 * deployed as `my-g3` sends Gemini 3's thinking level, the same generationConfig as its generate call.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { createFundedKey } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

describe('a converted token count on a deployment', () => {
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let apiKey: string;

  beforeAll(async () => {
    const dir = tempDir();
    gemini = await startGeminiFake({ models: { 'my-g3': { thinking: true, gemini3: true } }, apiKey: 'goog-upstream-key', finalText: 'Done.' });
    const configFile = writeConfig(dir, {
      providers: { google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [{ id: 'gemini-3-pro-preview', deployment: 'my-g3' }] } },
      routing: { retry: { attempts: 1 } },
    });
    const dataDir = path.join(dir, 'data');
    apiKey = await createFundedKey(configFile, dataDir, 'count@example.com', 1000);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });

  it("Responses input_tokens on Gemini 3 deployed as my-g3: the counted request's generationConfig is the generate call's (a thinking level)", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 });
    const params = { model: 'gemini-3-pro-preview', input: 'How far is the Moon?', reasoning: { effort: 'medium' as const } };
    const counted = await openai.responses.inputTokens.count(params).withResponse();
    expect(counted.response.headers.get('x-gateway-token-count')).toBe('upstream');
    await openai.responses.create(params);
    expect(gemini.rejections).toEqual([]);
    const count = gemini.requests.find((r) => r.path.endsWith(':countTokens'))!;
    const generate = gemini.requests.find((r) => r.path.endsWith(':generateContent'))!;
    expect(count.path).toBe('/v1beta/models/my-g3:countTokens');
    const wrapped = (count.json as Json).generateContentRequest;
    expect(wrapped.model).toBe('models/my-g3');
    expect((generate.json as Json).generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: 'high' });
    expect(wrapped.generationConfig.thinkingConfig).toEqual((generate.json as Json).generationConfig.thinkingConfig);
  });
});
