/**
 * Anthropic's Files API through the official SDK (`client.files.upload`, `list`,
 * `retrieveMetadata`, `download`, `delete`, and the beta namespace's), on the gateway's
 * `/v1/files`, which OpenAI's Files API shares: the Anthropic SDKs (known by `anthropic-version`)
 * get Anthropic's shapes and errors, the OpenAI SDK OpenAI's, on the same files of the account.
 * A file uploaded so is then named in a prompt by `file_id` and reaches Claude inline. Before, the
 * upload was OpenAI's 400 "Missing required field 'purpose'" and every answer OpenAI's shape.
 */
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

describe("Anthropic's Files API (the Anthropic SDK) on /v1/files beside OpenAI's", () => {
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  let openai: OpenAI;

  beforeAll(async () => {
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } }, finalText: 'Read.' });
    gw = await spawnGateway({
      config: {
        providers: { ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'vision', 'documents'] }] } },
        routing: { retry: { attempts: 1 } },
      },
    });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await messages?.close();
  });

  it('upload, retrieveMetadata, list (newest first, paged both ways), download and delete in Anthropic\'s shapes', async () => {
    const first = await anthropic.files.upload({ file: await toFile(PDF, 'report.pdf', { type: 'application/pdf' }) });
    expect(first).toMatchObject({ type: 'file', filename: 'report.pdf', mime_type: 'application/pdf', size_bytes: PDF.length, downloadable: true });
    expect(first.id).toMatch(/^file_/);
    expect(new Date(first.created_at).toISOString()).toBe(first.created_at);
    const second = await anthropic.beta.files.upload({ file: await toFile(Buffer.from('notes'), 'notes.txt', { type: 'text/plain' }) });
    expect(second).toMatchObject({ type: 'file', mime_type: 'text/plain' });
    expect(await anthropic.files.retrieveMetadata(first.id)).toEqual(first);

    const page = await anthropic.files.list({ limit: 1 });
    expect(page.data.map((f) => f.id)).toEqual([second.id]);
    expect(page.hasNextPage()).toBe(true);
    const ids: string[] = [];
    for await (const file of anthropic.files.list({ limit: 1 })) ids.push(file.id);
    expect(ids).toEqual([second.id, first.id]);
    // The beta namespace pages with after_id / before_id (has_more, first_id, last_id).
    const betaIds: string[] = [];
    for await (const file of anthropic.beta.files.list({ limit: 1 })) betaIds.push(file.id);
    expect(betaIds).toEqual([second.id, first.id]);
    const newer = await fetch(`${gw.url}/v1/files?limit=5&before_id=${first.id}`, { headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01' } });
    expect(((await newer.json()) as { data: Array<{ id: string }> }).data.map((f) => f.id)).toEqual([second.id]);
    const named = await anthropic.files.list({ ids: [first.id, 'file_nothing'] });
    expect(named.data.map((f) => f.id)).toEqual([first.id]);
    expect(named.hasNextPage()).toBe(false);

    const bytes = Buffer.from(await (await anthropic.files.download(first.id)).arrayBuffer());
    expect(bytes.equals(PDF)).toBe(true);
    // The OpenAI SDK sees the same files in its own shape.
    expect(await openai.files.retrieve(first.id)).toMatchObject({ object: 'file', bytes: PDF.length, filename: 'report.pdf' });

    expect(await anthropic.files.delete(second.id)).toEqual({ id: second.id, type: 'file_deleted' });
    const gone = await anthropic.files.retrieveMetadata(second.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(Anthropic.NotFoundError);
    expect((gone as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('a file uploaded with the Anthropic SDK, named in a message by file_id, reaches Claude as a base64 document', async () => {
    const file = await anthropic.files.upload({ file: await toFile(PDF, 'brief.pdf', { type: 'application/pdf' }) });
    const answer = await anthropic.messages.create({
      model: 'ant/claude-up',
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: file.id } }, { type: 'text', text: 'Summarise.' }] }],
    });
    expect(answer.content).toEqual([{ type: 'text', text: 'Read.' }]);
    expect(messages.rejections).toEqual([]);
    const sent = (messages.requests.at(-1)!.json as { messages: Array<{ content: unknown[] }> }).messages[0].content[0];
    expect(sent).toEqual({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') } });
  });

  it("the OpenAI SDK's upload still needs its purpose, in OpenAI's shape", async () => {
    const error = await openai.files.create({ file: await toFile(PDF, 'x.pdf'), purpose: undefined as never }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('purpose');
  });
});
