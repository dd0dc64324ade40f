import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** /v1/files and /v1/batches through the official openai client (v6), on mock. */
describe('files and batches (official openai client, real CLI and server)', () => {
  let gw: SpawnedGateway;
  let configFile: string;
  let dataDir: string;
  let client: OpenAI;
  let other: OpenAI;

  const cli = async (args: string[]) => {
    const result = await runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
  };
  const failure = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError> & { error?: { code?: string } };
  };

  beforeAll(async () => {
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } }, batches: { maxFileLines: 5, maxFileBytes: 4096 } });
    for (const email of ['one@example.com', 'two@example.com']) {
      expect((await cli(['accounts', 'create', '--email', email, '--tier', 'enterprise', '--credits', '100000'])).code).toBe(0);
    }
    const keyOf = async (email: string) => JSON.parse((await cli(['keys', 'create', '--account', email, '--json'])).out) as { key: string };
    const [one, two] = [await keyOf('one@example.com'), await keyOf('two@example.com')];
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: one.key, maxRetries: 0 });
    other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: two.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('files: create, retrieve, list newest first with auto-pagination, content byte for byte, delete; 404 for another account', async () => {
    const text = '{"custom_id":"a"}\n{"custom_id":"é🙂"}\n';
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await client.files.create({ file: await toFile(Buffer.from(text), `in-${i}.jsonl`), purpose: i === 2 ? 'user_data' : 'batch' }));
    }
    expect(made[0]).toMatchObject({ object: 'file', bytes: Buffer.byteLength(text), filename: 'in-0.jsonl', purpose: 'batch' });
    expect(made[0].id).toMatch(/^file-/);
    expect(await client.files.retrieve(made[1].id)).toEqual(made[1]);
    const listed = [];
    for await (const f of client.files.list({ limit: 1 })) listed.push(f.id);
    expect(listed).toEqual(made.map((f) => f.id).reverse());
    const content = await client.files.content(made[0].id);
    expect(await content.text()).toBe(text);
    expect((await failure(other.files.retrieve(made[0].id))).status).toBe(404);
    const foreign = await failure(other.files.content(made[0].id));
    expect([foreign.status, foreign.error?.code]).toEqual([404, 'file_not_found']);
    expect((await failure(other.files.delete(made[0].id))).status).toBe(404);
    expect(await client.files.delete(made[0].id)).toEqual({ id: made[0].id, object: 'file', deleted: true });
    expect((await failure(client.files.retrieve(made[0].id))).status).toBe(404);
    // Contents live in the data dir (0600), not in db.json.
    const stored = path.join(dataDir, 'files', made[1].id);
    expect(fs.readFileSync(stored, 'utf8')).toBe(text);
    expect(fs.statSync(stored).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(dataDir, 'db.json'), 'utf8')).not.toContain('custom_id');
  });

  it('files: over the byte or line limit → 413; a missing purpose → 422', async () => {
    const tooBig = await failure(client.files.create({ file: await toFile(Buffer.alloc(5000, 'x'), 'big.jsonl'), purpose: 'user_data' }));
    expect(tooBig.status).toBe(413);
    const tooLong = await failure(client.files.create({ file: await toFile(Buffer.from('{}\n'.repeat(6)), 'long.jsonl'), purpose: 'batch' }));
    expect(tooLong.status).toBe(413);
    const noPurpose = await failure(client.files.create({ file: await toFile(Buffer.from('{}'), 'x.jsonl'), purpose: 'nope' as 'batch' }));
    expect(noPurpose.status).toBe(422);
  });
});
