/**
 * OpenAI's stored Chat Completions routes (the openai SDK's chat.completions.retrieve, list,
 * update, delete, messages.list) on a gateway that keeps no Chat Completions: each is a 404
 * NotFoundError in OpenAI's shape that says so and points to /v1/responses. Before, the list was
 * a 405 "Method GET is not allowed" and the others a bare "No route".
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('stored Chat Completions routes', () => {
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gw = await spawnGateway();
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it.each([
    ['retrieve', () => client.chat.completions.retrieve('chatcmpl-abc')],
    ['list', () => client.chat.completions.list()],
    ['update', () => client.chat.completions.update('chatcmpl-abc', { metadata: { a: 'b' } })],
    ['delete', () => client.chat.completions.delete('chatcmpl-abc')],
    ['messages.list', () => client.chat.completions.messages.list('chatcmpl-abc')],
  ])('%s is a 404 saying the gateway keeps none', async (_name, call) => {
    const error = await (call() as Promise<unknown>).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const apiError = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(apiError.code).toBe('not_found');
    expect(apiError.type).toBe('invalid_request_error');
    expect(apiError.message).toContain('does not keep Chat Completions');
    expect(apiError.message).toContain('/v1/responses');
  });

  it('needs a key, as every /v1 route', async () => {
    const anonymous = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    const error = await anonymous.chat.completions.list().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
