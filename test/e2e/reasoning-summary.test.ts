/**
 * A Messages client's thinking on an OpenAI reasoning model over a Responses upstream: OpenAI
 * writes no reasoning text unless `reasoning.summary` asks for it (its reasoning items have
 * `summary: []`), so the gateway asks for `auto` and the client's thinking blocks carry the
 * summary. An organization OpenAI has not verified is refused any summary (400, param
 * `reasoning.summary`, "Your organization must be verified to generate reasoning summaries."): the
 * gateway then asks once more without it, so the answer still comes, its thinking signed but
 * without text (`X-Gateway-Adapted: reasoning.summary=removed`). The strict Responses fakes answer
 * as OpenAI does: a summary only when asked, and a refusal for the unverified one.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { createStrictHandler, UNVERIFIED_SUMMARY } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe('reasoning summaries for thinking clients on a Responses upstream', () => {
  const MODELS = { 'gpt-5': { maxOutput: 128000, reasoning: true } };
  const model = { id: 'gpt-5', maxOutputTokens: 128000, capabilities: ['streaming', 'function_calling', 'thinking'] };
  // One OpenAI, two organizations: a verified one under /ok, one OpenAI has not verified under /nv.
  const verified = createStrictHandler({ format: 'responses', models: MODELS, finalText: 'Hello there.' });
  const unverified = createStrictHandler({ format: 'responses', models: MODELS, finalText: 'Hello there.', unverifiedOrganization: true });
  let openai: FakeUpstream;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  let google: GoogleGenAI;
  /** The bodies one organization's provider sent. */
  const sent = (org: 'ok' | 'nv'): Json[] => openai.requests.filter((request) => request.path.startsWith(`/${org}/`)).map((request) => request.json as Json);

  beforeAll(async () => {
    openai = await startFakeUpstream((request) => (request.path.startsWith('/nv/') ? unverified : verified).handle(request));
    const provider = (org: string) => ({ plugin: 'openai', baseURL: `${openai.url}/${org}/v1`, apiKey: 'x', formats: ['responses'], models: [model] });
    gw = await spawnGateway({ config: { providers: { ok: provider('ok'), nv: provider('nv') }, routing: { retry: { attempts: 1 } } } });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
    google = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await openai?.close();
  });
  beforeEach(() => {
    openai.requests.length = 0;
    verified.rejections.length = 0;
    unverified.rejections.length = 0;
  });

  const ask = async (model: string, stream: boolean) => {
    const params = { model, max_tokens: 4000, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, messages: [{ role: 'user' as const, content: 'Say hi' }] };
    if (!stream) return anthropic.messages.create(params).withResponse();
    const run = anthropic.messages.stream(params);
    return { data: await run.finalMessage(), response: (await run.withResponse()).response };
  };

  it.each([false, true])('an Anthropic SDK client sees the thinking as OpenAI summarized it (stream: %s)', async (stream) => {
    const { data, response } = await ask('ok/gpt-5', stream);
    expect(verified.rejections).toEqual([]);
    // Before: summary not asked, the thinking block empty.
    expect(sent('ok')[0].reasoning).toEqual({ effort: 'medium', summary: 'auto' });
    expect(data.content[0]).toMatchObject({ type: 'thinking', thinking: 'Thinking about the task.', signature: expect.stringMatching(/^gwpm:/) });
    expect(data.content[1]).toMatchObject({ type: 'text', text: 'Hello there.' });
    expect(response.headers.get('x-gateway-adapted')).toBeNull();
  });

  it('an organization OpenAI has not verified: asked once more without the summary, answered; its next calls leave the summary out at once', async () => {
    const first = await ask('nv/gpt-5', false);
    expect(unverified.rejections).toEqual([UNVERIFIED_SUMMARY]);
    expect(sent('nv').map((body) => body.reasoning)).toEqual([{ effort: 'medium', summary: 'auto' }, { effort: 'medium' }]);
    expect(first.data.content[0]).toMatchObject({ type: 'thinking', thinking: '', signature: expect.stringMatching(/^gwpm:/) });
    expect(first.data.content[1]).toMatchObject({ type: 'text', text: 'Hello there.' });
    expect(first.response.headers.get('x-gateway-adapted')).toBe('reasoning.summary=removed');
    // The refusal is the organization's, not the request's: the next call (streamed) is not refused first.
    openai.requests.length = 0;
    const next = await ask('nv/gpt-5', true);
    expect(unverified.rejections).toEqual([UNVERIFIED_SUMMARY]);
    expect(sent('nv').map((body) => body.reasoning)).toEqual([{ effort: 'medium' }]);
    expect(next.data.content[1]).toMatchObject({ type: 'text', text: 'Hello there.' });
    expect(next.response.headers.get('x-gateway-adapted')).toBe('reasoning.summary=removed');
    // The verified organization's provider still asks for its summary.
    openai.requests.length = 0;
    await ask('ok/gpt-5', false);
    expect(sent('ok')[0].reasoning).toEqual({ effort: 'medium', summary: 'auto' });
  });

  it("gemini-cli's includeThoughts from an unverified organization: answered, not OpenAI's 400", async () => {
    // Before: the refusal went to the client (400 "Your organization must be verified…").
    const answer = await google.models.generateContent({ model: 'nv/gpt-5', contents: 'Say hi', config: { thinkingConfig: { includeThoughts: true, thinkingBudget: -1 } } });
    expect(answer.text).toBe('Hello there.');
    expect(answer.sdkHttpResponse?.headers?.['x-gateway-adapted']).toBe('reasoning.summary=removed');
    // The provider's refusal is remembered from the call above: asked without the summary at once.
    expect(sent('nv')).toHaveLength(1);
    expect(sent('nv')[0].reasoning).not.toHaveProperty('summary');
  });
});
