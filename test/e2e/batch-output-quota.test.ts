import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * A batch's output and error files and the account's file quota (storage.fileQuotaBytes,
 * docs/batches.md): they are written whatever the room left (work done and paid for is not
 * lost), and they count as the account's stored bytes, so a later upload is refused while they
 * are kept and taken once they are deleted. The official openai client on the real CLI, on mock.
 */
const QUOTA = 3_000;

describe('batch results and the file quota (official openai client, real CLI and server)', () => {
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } }, storage: { fileQuotaBytes: QUOTA } });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'q@example.com', '--tier', 'enterprise', '--credits', '100000'])).exitCode).toBe(0);
    const { key } = JSON.parse(String((await cli(['keys', 'create', '--account', 'q@example.com', '--json'])).stdout)) as { key: string };
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError> & { error?: { code?: string; details?: Record<string, number> } };
  };
  const file = async (bytes: number) => toFile(Buffer.alloc(bytes, 'x'), 'notes.txt');

  it('writes the output past the quota, counts it, refuses the next upload, and takes it once the output is deleted', async () => {
    const text = 'y'.repeat(400);
    const lines = ['a', 'b', 'c'].map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: text }] } }));
    const input = await client.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'in.jsonl'), purpose: 'batch' });
    expect(input.bytes).toBeLessThan(QUOTA);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await until('the batch to end', async () => {
      const b = await client.batches.retrieve(created.id);
      return ['completed', 'failed', 'expired', 'cancelled'].includes(b.status) ? b : undefined;
    });
    expect(done.status).toBe('completed');
    const output = await client.files.retrieve(done.output_file_id!);
    // The answers are there in full, though they take the account past its quota.
    expect(input.bytes + output.bytes).toBeGreaterThan(QUOTA);
    expect((await (await client.files.content(output.id)).text()).trim().split('\n')).toHaveLength(3);

    const listed = [];
    for await (const f of client.files.list()) listed.push([f.id, f.purpose, f.bytes]);
    expect(listed).toEqual([
      [output.id, 'batch_output', output.bytes],
      [input.id, 'batch', input.bytes],
    ]);
    const refused = await refusal(client.files.create({ file: await file(10), purpose: 'user_data' }));
    expect([refused.status, refused.error?.code, refused.error?.details]).toEqual([429, 'quota_exceeded', { limit: 'storage.fileQuotaBytes', quota_bytes: QUOTA, used_bytes: input.bytes + output.bytes }]);

    expect(await client.files.delete(output.id)).toMatchObject({ id: output.id, deleted: true });
    const room = QUOTA - input.bytes;
    expect((await client.files.create({ file: await file(room - 400), purpose: 'user_data' })).bytes).toBe(room - 400);
  });
});
