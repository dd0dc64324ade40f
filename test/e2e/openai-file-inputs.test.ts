/**
 * OpenAI's documented file-input flow through the gateway: `client.files.create({purpose:
 * 'user_data'})`, then a Chat `{type: 'file', file: {file_id}}` part or a Responses
 * `input_file` / `input_image` naming it. No upstream has the gateway's file ids, so the gateway
 * reads the caller's file and the part goes on inline (`file_data` with its filename, an image as
 * a data URL): to an OpenAI upstream as a rewritten passthrough, to Claude converted. An id the
 * account does not have (an upstream's own file, another account's) is left as written. Before,
 * every upstream got the gateway's id, which it does not know.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64 } from '../helpers/fake-gemini.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.from(FAKE_PNG_BASE64, 'base64');

describe("OpenAI's file inputs by file_id (files uploaded to the gateway's /v1/files)", () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;
  let pdf: OpenAI.FileObject;
  let png: OpenAI.FileObject;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o': { maxOutput: 16384, reasoning: false } }, finalText: 'Seen.' });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-4.1': { maxOutput: 32768, reasoning: false } }, finalText: 'Seen.' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } }, finalText: 'Read.' });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'vision', 'documents'] }] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    pdf = await client.files.create({ file: await toFile(PDF, 'report.pdf'), purpose: 'user_data' });
    png = await client.files.create({ file: await toFile(PNG, 'dot.png'), purpose: 'user_data' });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages]) await fake?.close();
  });
  beforeEach(() => {
    for (const fake of [chat, responses, messages]) {
      fake.requests.length = 0;
      fake.rejections.length = 0;
    }
  });

  const PDF_URL = `data:application/pdf;base64,${PDF.toString('base64')}`;
  const PNG_URL = `data:image/png;base64,${PNG.toString('base64')}`;
  const lastBody = (fake: StrictFake) => fake.requests.at(-1)!.json as Json;

  it('Chat on an OpenAI upstream: the file part carries the PDF as file_data with its filename, an image file as image_url; streamed too', async () => {
    for (const stream of [false, true]) {
      const content = [
        { type: 'file', file: { file_id: pdf.id } },
        { type: 'file', file: { file_id: png.id } },
        { type: 'text', text: 'Summarise.' },
      ] as never;
      if (stream) {
        let text = '';
        for await (const chunk of await client.chat.completions.create({ model: 'oc/gpt-4o', stream: true, messages: [{ role: 'user', content }] })) text += chunk.choices[0]?.delta?.content ?? '';
        expect(text).toBe('Seen.');
      } else {
        expect((await client.chat.completions.create({ model: 'oc/gpt-4o', messages: [{ role: 'user', content }] })).choices[0].message.content).toBe('Seen.');
      }
      expect(chat.rejections).toEqual([]);
      const parts = lastBody(chat).messages[0].content;
      expect(parts[0]).toEqual({ type: 'file', file: { filename: 'report.pdf', file_data: PDF_URL } });
      expect(parts[1]).toEqual({ type: 'image_url', image_url: { url: PNG_URL } });
      expect(JSON.stringify(lastBody(chat))).not.toContain(pdf.id);
    }
  });

  it('Chat converted to Claude: the PDF is a base64 document block, the image a base64 image', async () => {
    const answer = await client.chat.completions.create({ model: 'ant/claude-up', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: pdf.id } }, { type: 'file', file: { file_id: png.id } }, { type: 'text', text: 'Summarise.' }] as never }] });
    expect(answer.choices[0].message.content).toBe('Read.');
    expect(messages.rejections).toEqual([]);
    const blocks = lastBody(messages).messages[0].content;
    expect(blocks[0]).toMatchObject({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') } });
    expect(blocks[1]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } });
  });

  it('Responses: input_file and input_image by file_id go inline; the stored response chains on', async () => {
    const first = await client.responses.create({
      model: 'or/gpt-4.1',
      input: [{ role: 'user', content: [{ type: 'input_file', file_id: pdf.id }, { type: 'input_image', file_id: png.id, detail: 'low' }, { type: 'input_text', text: 'Summarise.' }] }],
    });
    expect(first.output_text).toBe('Seen.');
    expect(responses.rejections).toEqual([]);
    const parts = lastBody(responses).input[0].content;
    expect(parts[0]).toEqual({ type: 'input_file', filename: 'report.pdf', file_data: PDF_URL });
    expect(parts[1]).toEqual({ type: 'input_image', image_url: PNG_URL, detail: 'low' });
    // The next turn by previous_response_id rebuilds the history with the file inline, as it was sent.
    const second = await client.responses.create({ model: 'or/gpt-4.1', previous_response_id: first.id, input: 'And again?' });
    expect(second.output_text).toBe('Seen.');
    expect(JSON.stringify(lastBody(responses).input)).toContain(PDF.toString('base64'));
  });

  it('a Messages client naming the same files by file_id: Claude gets base64 blocks (a rewritten passthrough), a Chat upstream file_data', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    const content = [
      { type: 'document', source: { type: 'file', file_id: pdf.id }, title: 'Report' },
      { type: 'image', source: { type: 'file', file_id: png.id } },
      { type: 'text', text: 'Summarise.' },
    ] as never;
    const answer = await anthropic.messages.create({ model: 'ant/claude-up', max_tokens: 100, messages: [{ role: 'user', content }] });
    expect(answer.content).toEqual([{ type: 'text', text: 'Read.' }]);
    expect(messages.rejections).toEqual([]);
    const blocks = lastBody(messages).messages[0].content;
    expect(blocks[0]).toEqual({ type: 'document', title: 'Report', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') } });
    expect(blocks[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } });
    await anthropic.messages.create({ model: 'oc/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content }] });
    expect(chat.rejections).toEqual([]);
    const parts = lastBody(chat).messages[0].content;
    expect(JSON.stringify(parts)).toContain(PDF.toString('base64'));
    expect(JSON.stringify(parts)).not.toContain(pdf.id);
  });

  // Before: only a message's own parts were looked at, so a file a tool's result names (Anthropic's tool_result
  // content, a Responses function_call_output's output) went up with the gateway's id, which no upstream knows.
  it("a file named inside a tool's result goes inline too: Messages tool_result content, Responses function_call_output", async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    const tools = [{ name: 'fetch_report', description: 'Fetches the report.', input_schema: { type: 'object' as const, properties: {} } }];
    const answer = await anthropic.messages.create({
      model: 'ant/claude-up',
      max_tokens: 100,
      tools,
      messages: [
        { role: 'user', content: 'Fetch the report and summarise it.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'fetch_report', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'document', source: { type: 'file', file_id: pdf.id } }] }] },
      ] as never,
    });
    expect(answer.content).toEqual([{ type: 'text', text: 'Read.' }]);
    expect(messages.rejections).toEqual([]);
    expect(lastBody(messages).messages[2].content[0].content[0]).toEqual({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') } });

    const reply = await client.responses.create({
      model: 'or/gpt-4.1',
      tools: [{ type: 'function', name: 'fetch_report', parameters: { type: 'object', properties: {} }, strict: false }],
      input: [
        { role: 'user', content: 'Fetch the report and summarise it.' },
        { type: 'function_call', call_id: 'call_1', name: 'fetch_report', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_file', file_id: pdf.id }] },
      ] as never,
    });
    expect(reply.output_text).toBe('Seen.');
    expect(responses.rejections).toEqual([]);
    expect(lastBody(responses).input[2].output[0]).toEqual({ type: 'input_file', filename: 'report.pdf', file_data: PDF_URL });
  });

  it("an id the account does not have (an upstream's own file, another account's) goes on as written; no bytes of another account's file", async () => {
    const cli = (args: string[]) => runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'other@example.com', '--credits', '1000'])).exitCode).toBe(0);
    const otherKey = (JSON.parse(String((await cli(['keys', 'create', '--account', 'other@example.com', '--json'])).stdout)) as { key: string }).key;
    const other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: otherKey, maxRetries: 0 });
    for (const [caller, id] of [
      [client, 'file-upstreamOwn123'],
      [other, pdf.id],
    ] as const) {
      await caller.chat.completions.create({ model: 'oc/gpt-4o', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: id } }, { type: 'text', text: 'Hi' }] as never }] });
      expect(lastBody(chat).messages[0].content[0]).toEqual({ type: 'file', file: { file_id: id } });
      expect(JSON.stringify(lastBody(chat))).not.toContain(PDF.toString('base64'));
    }
  });

  it("a key whose endpoints leave out files may not read the account's files by naming them: 403 in each client's format, nothing sent", async () => {
    const cli = (args: string[]) => runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, ...args]);
    const created = await cli(['keys', 'create', '--endpoints', 'chat,responses,messages,gemini', '--json']);
    const scoped = (JSON.parse(String(created.stdout)) as { key: string }).key;
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: scoped, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: scoped, maxRetries: 0 });
    const refusals = [
      await openai.chat.completions.create({ model: 'oc/gpt-4o', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: pdf.id } }] as never }] }).catch((e: unknown) => e),
      await openai.responses.create({ model: 'or/gpt-4.1', input: [{ role: 'user', content: [{ type: 'input_image', file_id: png.id, detail: 'auto' }] }] }).catch((e: unknown) => e),
    ];
    for (const error of refusals) {
      expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect((error as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe('authorization_error');
    }
    const claude = await anthropic.messages.create({ model: 'ant/claude-up', max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: pdf.id } }, { type: 'text', text: 'Hi' }] as never }] }).catch((e: unknown) => e);
    expect(claude).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((claude as InstanceType<typeof Anthropic.PermissionDeniedError>).error).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    const google = await fetch(`${gw.url}/v1beta/models/ant/claude-up:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': scoped, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ fileData: { fileUri: `files/${pdf.id}`, mimeType: 'application/pdf' } }, { text: 'Hi' }] }] }),
    });
    expect(google.status).toBe(403);
    expect(((await google.json()) as Json).error).toMatchObject({ status: 'PERMISSION_DENIED', message: expect.stringContaining('files') });
    // Counting is reading too.
    const counted = await anthropic.messages.countTokens({ model: 'ant/claude-up', messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: pdf.id } }] as never }] }).catch((e: unknown) => e);
    expect(counted).toBeInstanceOf(Anthropic.PermissionDeniedError);
    for (const fake of [chat, responses, messages]) expect(fake.requests).toEqual([]);
    // An id the account does not have is still left as written for the upstream.
    await openai.chat.completions.create({ model: 'oc/gpt-4o', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-upstreamOwn123' } }, { type: 'text', text: 'Hi' }] as never }] });
    expect(lastBody(chat).messages[0].content[0]).toEqual({ type: 'file', file: { file_id: 'file-upstreamOwn123' } });
  });
});
