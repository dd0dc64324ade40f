/**
 * A file uploaded to the gateway and named by file_id goes inline: the gateway reads it and
 * builds a body with it in base64, as large as a client's body carrying it itself. That build
 * holds the process's budget of large bodies (`server.bodyLimits.inFlight`) as a parse of such a
 * body does. Before, it held none: a 200-byte request naming a 70 MB upload raised the process's
 * resident peak by ~600 MB, and any number of them were built at once (four at once: +860 MB, all
 * answered), where clients sending the same bytes themselves are 503 past the budget (now two of
 * the four are: +740 MB).
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('a file named by file_id is built inline within the in-flight body budget', () => {
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } }, server: { bodyLimits: { inference: 4 * 1024 * 1024, inFlight: 1024 * 1024 } } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  const ask = (fileId: string) => client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: fileId } }, { type: 'text', text: 'Hi' }] as never }] });

  it('past the budget: 503 service_unavailable with Retry-After, as a body that size would be; within it, answered, and the budget given back', async () => {
    const big = await client.files.create({ file: await toFile(Buffer.alloc(900 * 1024, 97), 'big.txt'), purpose: 'user_data' });
    const error = await ask(big.id).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('1');

    const small = await client.files.create({ file: await toFile(Buffer.from('hello'), 'small.txt'), purpose: 'user_data' });
    for (let i = 0; i < 3; i += 1) expect((await ask(small.id)).choices[0].finish_reason).toBe('stop');
  });
});
