import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * Anthropic's Message Batches through the official `@anthropic-ai/sdk` (`client.messages.batches`):
 * create, retrieve until ended, results, list, cancel and delete, on the offline mock provider.
 */
describe('Message Batches (/v1/messages/batches) through @anthropic-ai/sdk', () => {
  let gw: SpawnedGateway;
  let anthropic: Anthropic;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' }, refusing: { plugin: 'mock', failFirst: 1, failStatus: 400 }, slow: { plugin: 'mock', latencyMs: 3_000 } }, batches: { concurrency: 1 } } });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const params = (model: string, text: string) => ({ model, max_tokens: 64, messages: [{ role: 'user' as const, content: text }] });
  const ended = (id: string) =>
    until(`message batch ${id} to end`, async () => {
      const b = await anthropic.messages.batches.retrieve(id);
      return b.processing_status === 'ended' ? b : undefined;
    });

  it('create → retrieve until ended → results: succeeded messages and an errored request under their custom ids', async () => {
    const created = await anthropic.messages.batches.create({
      requests: [
        { custom_id: 'first', params: params('mock/echo', 'hello one') },
        { custom_id: 'second', params: params('refusing/echo', 'hello two') },
        { custom_id: 'third', params: params('mock/echo', 'hello three') },
      ],
    });
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', request_counts: { processing: 3, succeeded: 0, errored: 0, canceled: 0, expired: 0 }, ended_at: null, results_url: null, archived_at: null, cancel_initiated_at: null });
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(86_400_000);
    const done = await ended(created.id);
    expect(done.request_counts).toEqual({ processing: 0, succeeded: 2, errored: 1, canceled: 0, expired: 0 });
    expect(done.ended_at).toEqual(expect.any(String));
    expect(done.results_url).toBe(`${gw.url}/v1/messages/batches/${created.id}/results`);

    const results: Anthropic.Messages.Batches.MessageBatchIndividualResponse[] = [];
    for await (const r of await anthropic.messages.batches.results(created.id)) results.push(r);
    const byId = Object.fromEntries(results.map((r) => [r.custom_id, r.result]));
    expect(Object.keys(byId).sort()).toEqual(['first', 'second', 'third']);
    expect(byId.first).toMatchObject({ type: 'succeeded', message: { type: 'message', role: 'assistant', content: [{ type: 'text' }] } });
    expect(byId.third.type).toBe('succeeded');
    expect(byId.second).toMatchObject({ type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error' } } });

    // The same batch on OpenAI's face.
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    expect(await openai.batches.retrieve(created.id)).toMatchObject({ endpoint: '/v1/messages', status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
  }, 60_000);

  it('cancel a running batch: canceling, then ended with the unrun requests canceled; list pages; delete only once ended', async () => {
    const running = await anthropic.messages.batches.create({
      requests: [0, 1, 2, 3].map((i) => ({ custom_id: `slow-${i}`, params: params('slow/echo', `slow ${i}`) })),
    });
    const early = await anthropic.messages.batches.delete(running.id).catch((error: unknown) => error);
    expect(early).toBeInstanceOf(Anthropic.APIError);
    expect((early as InstanceType<typeof Anthropic.APIError>).status).toBe(409);
    const cancelling = await anthropic.messages.batches.cancel(running.id);
    expect(['canceling', 'ended']).toContain(cancelling.processing_status);
    expect(cancelling.cancel_initiated_at).toEqual(expect.any(String));
    const done = await ended(running.id);
    expect(done.request_counts.canceled).toBeGreaterThan(0);
    expect(done.request_counts.canceled + done.request_counts.succeeded + done.request_counts.errored).toBe(4);

    const page = await anthropic.messages.batches.list({ limit: 1 });
    expect(page.data.map((b) => b.id)).toEqual([running.id]);
    expect(page.has_more).toBe(true);
    const ids: string[] = [];
    for await (const b of anthropic.messages.batches.list({ limit: 1 })) ids.push(b.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(running.id);

    expect(await anthropic.messages.batches.delete(running.id)).toEqual({ id: running.id, type: 'message_batch_deleted' });
    const gone = await anthropic.messages.batches.retrieve(running.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(Anthropic.NotFoundError);
    expect((await anthropic.messages.batches.list()).data.map((b) => b.id)).not.toContain(running.id);
  }, 60_000);

  it('a request the gateway cannot route: every request of the batch ends errored, that one with its reason', async () => {
    const created = await anthropic.messages.batches.create({
      requests: [{ custom_id: 'fine', params: params('mock/echo', 'x') }, { custom_id: 'lost', params: params('mock/nothing-here', 'y') }],
    });
    const done = await ended(created.id);
    expect(done.request_counts).toEqual({ processing: 0, succeeded: 0, errored: 2, canceled: 0, expired: 0 });
    const results: Anthropic.Messages.Batches.MessageBatchIndividualResponse[] = [];
    for await (const r of await anthropic.messages.batches.results(created.id)) results.push(r);
    const byId = Object.fromEntries(results.map((r) => [r.custom_id, r.result]));
    expect(byId.lost).toMatchObject({ type: 'errored', error: { error: { type: 'not_found_error', message: expect.stringContaining('mock/nothing-here') } } });
    expect(byId.fine).toMatchObject({ type: 'errored', error: { error: { type: 'invalid_request_error', message: expect.stringContaining('Not run') } } });
  }, 60_000);

  it("refuses what Anthropic's API refuses, in Anthropic's error shape", async () => {
    const duplicate = await anthropic.messages.batches
      .create({ requests: [{ custom_id: 'a', params: params('mock/echo', 'x') }, { custom_id: 'a', params: params('mock/echo', 'y') }] })
      .catch((error: unknown) => error);
    expect((duplicate as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const empty = await anthropic.messages.batches.create({ requests: [] }).catch((error: unknown) => error);
    expect((empty as InstanceType<typeof Anthropic.APIError>).status).toBe(422);
    const unknown = await anthropic.messages.batches.retrieve('batch_nothing').catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
  });
});
