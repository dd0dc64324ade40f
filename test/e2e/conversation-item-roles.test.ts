/**
 * A conversation keeps only items its later turns can read. An item whose message role the gateway
 * has no form for (`wizard`) was kept by conversations.create and items.create (200), then left out
 * of the history of every request naming the conversation without a word; OpenAI refuses the
 * role. Now both answer 422 naming `items[i].role`, and nothing is added. Real CLI, openai SDK.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('conversation items with a role no model can be given', () => {
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'ada@example.test', '--credits', '100000'])).exitCode).toBe(0);
    const key = (JSON.parse(String((await cli(['keys', 'create', '--account', 'ada@example.test', '--json'])).stdout)) as { key: string }).key;
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  const wizard = { type: 'message', role: 'wizard', content: 'I am Merlin.' } as never;
  const refusal = (error: unknown, param: string) => {
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((error as InstanceType<typeof OpenAI.APIError>).param).toBe(param);
    expect((error as Error).message).toContain("role 'wizard'");
  };

  it('conversations.create refuses it, naming items[i].role', async () => {
    refusal(await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'Hello' }, wizard] }).catch((e: unknown) => e), 'items[1].role');
  });

  it('items.create refuses it and adds nothing; the roles OpenAI knows are kept', async () => {
    const conversation = await client.conversations.create({});
    refusal(await client.conversations.items.create(conversation.id, { items: [wizard] }).catch((e: unknown) => e), 'items[0].role');
    expect((await client.conversations.items.list(conversation.id)).data).toEqual([]);
    const kept = await client.conversations.items.create(conversation.id, {
      items: ['system', 'developer', 'user', 'assistant'].map((role) => ({ type: 'message', role, content: `as ${role}` }) as never),
    });
    expect(kept.data.map((item) => (item as { role: string }).role)).toEqual(['system', 'developer', 'user', 'assistant']);
  });
});
