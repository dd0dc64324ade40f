/**
 * A file uploaded with `@google/genai`'s `ai.files.upload` and named in a prompt
 * (`createPartFromUri(file.uri, file.mimeType)`, a `fileData` part): no upstream can read the
 * gateway's file ids, so the gateway reads the calling account's file and sends it inline —
 * `inlineData` to a Gemini upstream (the passthrough becomes a rewrite), an image, a document
 * or text to a converted one. Another account's file, or none, is Google's 403; a file too large
 * to go inline is a 413; a URI that is Google's own goes to a Gemini upstream as written; a
 * Gemini batch line naming an uploaded file gets it too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, GoogleGenAI, JobState, createPartFromUri, type File as GeminiFile } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64, startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { until } from '../helpers/until.ts';

type Json = Record<string, any>;

const PNG = Buffer.from(FAKE_PNG_BASE64, 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const TEXT = 'Line one of the notes.\nLine two: é ü 漢字.\n';
/** The inference body limit of this gateway: a file of 30,000 bytes is 40,000 inline. */
const BODY_LIMIT = 32_768;

describe('fileData naming a file uploaded to the gateway (@google/genai files.upload → createPartFromUri)', () => {
  let gemini: GeminiFake;
  let chat: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let ai: GoogleGenAI;
  const files: Record<string, GeminiFile> = {};

  beforeAll(async () => {
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, apiKey: 'goog-upstream-key', finalText: 'A tiny image.' });
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o': { maxOutput: 16384, reasoning: false } }, finalText: 'Seen.' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } }, finalText: 'Read.' });
    gw = await spawnGateway({
      config: {
        server: { bodyLimits: { inference: BODY_LIMIT } },
        providers: {
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'vision'] }] },
        },
        routing: { retry: { attempts: 1 } },
        batches: { concurrency: 1 },
      },
    });
    ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
    files.png = await ai.files.upload({ file: new Blob([PNG]), config: { mimeType: 'image/png', displayName: 'dot.png' } });
    files.pdf = await ai.files.upload({ file: new Blob([PDF]), config: { mimeType: 'application/pdf' } });
    files.text = await ai.files.upload({ file: new Blob([TEXT]), config: { mimeType: 'text/plain' } });
    files.audio = await ai.files.upload({ file: new Blob([Buffer.from('RIFF0000WAVEfmt ')]), config: { mimeType: 'audio/wav' } });
    files.large = await ai.files.upload({ file: new Blob([Buffer.alloc(30_000, 7)]), config: { mimeType: 'image/png' } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [gemini, chat, messages]) await fake?.close();
  });
  beforeEach(() => {
    for (const fake of [gemini, chat, messages]) fake.requests.length = 0;
  });

  const part = (file: GeminiFile) => createPartFromUri(file.uri!, file.mimeType!);
  const sentParts = (fake: GeminiFake, index = 0): Json[] => (fake.requests[index].json as Json).contents[0].parts;

  it('a Gemini upstream gets the file as inlineData (the passthrough is rewritten), JSON and streamed; the answer is the upstream\'s', async () => {
    expect(files.png.uri).toBe(`${gw.url}/v1beta/${files.png.name}`);
    const answer = await ai.models.generateContent({ model: 'google/gemini-2.5-flash', contents: [part(files.png), 'Describe this image.'], config: { temperature: 0.1 } });
    expect(answer.text).toBe('A tiny image.');
    expect(gemini.rejections).toEqual([]);
    expect(gemini.requests).toHaveLength(1);
    expect(gemini.requests[0].json).toEqual({
      contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } }, { text: 'Describe this image.' }] }],
      generationConfig: { temperature: 0.1 },
    });

    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'google/gemini-2.5-flash', contents: [part(files.pdf), 'Summarise.'] })) streamed += chunk.text ?? '';
    expect(streamed).toBe('A tiny image.');
    expect(gemini.requests[1].path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(sentParts(gemini, 1)[0]).toEqual({ inlineData: { mimeType: 'application/pdf', data: PDF.toString('base64') } });
  });

  it('countTokens counts the file inline: the Gemini counter is asked with its data, not a URI it cannot read', async () => {
    const counted = await ai.models.countTokens({ model: 'google/gemini-2.5-flash', contents: [part(files.png), 'Describe this image.'] });
    expect(counted.totalTokens).toBeGreaterThan(0);
    expect(gemini.requests).toHaveLength(1);
    expect(gemini.requests[0].path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(gemini.requests[0].body).toContain(FAKE_PNG_BASE64);
    expect(gemini.requests[0].body).not.toContain(files.png.name!);
  });

  it("the File's name (files/{id}) names it too, in snake_case as Google's REST examples write it; a URI that is Google's own goes as written", async () => {
    const google = { file_data: { mime_type: 'video/mp4', file_uri: 'https://generativelanguage.googleapis.com/v1beta/files/abc123' } };
    const res = await fetch(`${gw.url}/v1beta/models/google/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ file_data: { file_uri: files.text.name } }, google, { text: 'Compare.' }] }] }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(sentParts(gemini)).toEqual([{ inlineData: { mimeType: 'text/plain', data: Buffer.from(TEXT).toString('base64') } }, google, { text: 'Compare.' }]);
  });

  it('converted: an image goes to a Chat upstream as a data URL, a text file as text; a PDF to Anthropic as a base64 document', async () => {
    const seen = await ai.models.generateContent({ model: 'oc/gpt-4o', contents: [part(files.png), part(files.text), 'What are these?'] });
    expect(seen.text).toBe('Seen.');
    expect(chat.rejections).toEqual([]);
    const user = (chat.requests[0].json as Json).messages.find((m: Json) => m.role === 'user');
    expect(user.content).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${FAKE_PNG_BASE64}` } },
      { type: 'text', text: TEXT },
      { type: 'text', text: 'What are these?' },
    ]);

    const read = await ai.models.generateContent({ model: 'ant/claude-up', contents: [part(files.pdf), 'Summarise.'] });
    expect(read.text).toBe('Read.');
    expect(messages.rejections).toEqual([]);
    expect((messages.requests[0].json as Json).messages[0].content[0]).toEqual({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') } });
  });

  it('a type the upstream cannot take (audio to Anthropic) is a 400 INVALID_ARGUMENT naming it, before any upstream call', async () => {
    const error = await ai.models.generateContent({ model: 'ant/claude-up', contents: [part(files.audio), 'Transcribe.'] }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('INVALID_ARGUMENT');
    expect((error as ApiError).message).toContain('audio input is not supported by the upstream (Anthropic Messages)');
    expect(messages.requests).toHaveLength(0);
  });

  it("a file the account does not have — missing, or another account's — is Google's 403 PERMISSION_DENIED; none reaches an upstream", async () => {
    const cli = (args: string[]) => runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'other@example.com', '--credits', '1000'])).exitCode).toBe(0);
    const otherKey = (JSON.parse(String((await cli(['keys', 'create', '--account', 'other@example.com', '--json'])).stdout)) as { key: string }).key;
    const other = new GoogleGenAI({ apiKey: otherKey, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
    for (const [client, uri, id] of [
      [other, files.png.uri!, files.png.name!.slice('files/'.length)],
      [ai, `${gw.url}/v1beta/files/filenothere`, 'filenothere'],
    ] as const) {
      const res = await fetch(`${gw.url}/v1beta/models/google/gemini-2.5-flash:generateContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': client === other ? otherKey : gw.key!, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ parts: [{ fileData: { fileUri: uri } }, { text: 'Hi' }] }] }),
      });
      expect(res.status).toBe(403);
      const body = (await res.json()) as Json;
      expect(body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: `You do not have permission to access the File ${id} or it may not exist.` });
      expect(body.error.details[0]).toMatchObject({ reason: 'file_not_found' });
    }
    const error = await other.models.generateContent({ model: 'oc/gpt-4o', contents: [part(files.png), 'Hi'] }).then(() => undefined, (e: unknown) => e);
    expect((error as ApiError).status).toBe(403);
    expect(gemini.requests.length + chat.requests.length).toBe(0);
  });

  it('a file too large to go inline is a 413, as the same bytes sent inline would be', async () => {
    const error = await ai.models.generateContent({ model: 'google/gemini-2.5-flash', contents: [part(files.large), 'Hi'] }).then(() => undefined, (e: unknown) => e);
    expect((error as ApiError).status).toBe(413);
    expect((error as ApiError).message).toContain('server.bodyLimits.inference');
    expect(gemini.requests).toHaveLength(0);
  });

  it('a Gemini batch whose request names an uploaded file: the line gets it inline', async () => {
    const created = await ai.batches.create({ model: 'google/gemini-2.5-flash', src: [{ contents: [{ role: 'user', parts: [part(files.png), { text: 'Describe.' }] }], metadata: { key: 'img' } }] });
    const done = await until('the batch to end', async () => {
      const job = await ai.batches.get({ name: created.name! });
      return job.state === JobState.JOB_STATE_SUCCEEDED || job.state === JobState.JOB_STATE_FAILED ? job : undefined;
    });
    expect(done.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect((done.dest?.inlinedResponses?.[0]?.response?.candidates?.[0]?.content?.parts ?? []).map((p) => p.text).join('')).toBe('A tiny image.');
    expect(sentParts(gemini)[0]).toEqual({ inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } });
  }, 60_000);

  it("an upload expires 48 hours after it was made, as Google's do: expirationTime says when; then it is gone (get, list, a prompt naming it) and the sweep deletes it", async () => {
    expect(Date.parse(files.text.expirationTime!) - Date.parse(files.text.createTime!)).toBe(48 * 3600 * 1000);
    expect((await ai.files.get({ name: files.text.name! })).expirationTime).toBe(files.text.expirationTime);
    const key = gw.key!;
    const contents = path.join(gw.dataDir, 'files', files.text.name!.slice('files/'.length));
    expect(fs.existsSync(contents)).toBe(true);
    await gw.stop();
    // The same data dir 49 hours later.
    gw = await spawnGateway({ configFile: gw.configFile, dataDir: gw.dataDir, env: { GATEWAY_CLOCK_OFFSET_MS: String(49 * 3600 * 1000) } });
    const later = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url, timeout: 20_000 } });
    await expect(later.files.get({ name: files.text.name! })).rejects.toMatchObject({ status: 404 });
    expect((await later.files.list()).page.map((f) => f.name)).not.toContain(files.text.name);
    const error = await later.models.generateContent({ model: 'google/gemini-2.5-flash', contents: [part(files.text), 'Hi'] }).then(() => undefined, (e: unknown) => e);
    expect((error as ApiError).status).toBe(403);
    await until('the expired upload to be deleted', async () => !fs.existsSync(contents) || undefined);
    expect(gemini.requests).toHaveLength(0);
  }, 60_000);
});
