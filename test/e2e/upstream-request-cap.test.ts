/**
 * A per-upstream cap on the request body (`providers.<id>.maxRequestBytes`, by default what the
 * plugin's API documents: Anthropic's Messages 32 MB). Before, a prompt naming large uploaded
 * files went up with them inline whatever their size (~75 MB to Anthropic, whose Cloudflare answers
 * 413 only after the whole upload); now such a request is refused before the call, 413
 * `request_too_large` in the client's own format. Real CLI, official SDKs, a strict Messages fake.
 */
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import anthropicPlugin from '../../plugins/anthropic/index.ts';
import googlePlugin from '../../plugins/google/index.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

/** A PDF-looking file of `bytes` bytes (its base64 is 4/3 of it). */
const pdf = (bytes: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(bytes - 9, 0x41)]);

describe('the per-upstream request cap (providers.<id>.maxRequestBytes)', () => {
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  let openai: OpenAI;

  beforeAll(async () => {
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } }, finalText: 'Read.' });
    gw = await spawnGateway({
      config: {
        providers: {
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', maxRequestBytes: 300_000, models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'vision', 'documents'] }] },
        },
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

  it('the plugins say what their APIs document: Anthropic 32 MB, Gemini 100 MB (read as MiB)', () => {
    expect(anthropicPlugin.maxRequestBytes).toBe(32 * 1024 * 1024);
    expect(googlePlugin.maxRequestBytes).toBe(100 * 1024 * 1024);
  });

  it('a Messages request whose uploaded files inline pass the cap is a 413 request_too_large in Anthropic\'s shape, and nothing goes up', async () => {
    const [a, b] = await Promise.all([
      anthropic.files.upload({ file: await toFile(pdf(150_000), 'a.pdf', { type: 'application/pdf' }) }),
      anthropic.files.upload({ file: await toFile(pdf(150_000), 'b.pdf', { type: 'application/pdf' }) }),
    ]);
    const before = messages.requests.length;
    const error = await anthropic.messages
      .create({
        model: 'ant/claude-up',
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: a.id } }, { type: 'document', source: { type: 'file', file_id: b.id } }, { type: 'text', text: 'Compare.' }] }],
      })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(413);
    expect(apiError.error).toMatchObject({ type: 'error', error: { type: 'request_too_large', message: expect.stringContaining("provider 'ant', which takes at most 300000 (providers.ant.maxRequestBytes)") } });
    expect(messages.requests.length).toBe(before);

    // One of them fits: it goes up inline and is answered.
    const answer = await anthropic.messages.create({ model: 'ant/claude-up', max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: a.id } }, { type: 'text', text: 'Summarise.' }] }] });
    expect(answer.content).toEqual([{ type: 'text', text: 'Read.' }]);
    expect(messages.requests.length).toBe(before + 1);
  });

  it('a Chat request converted to that upstream gets the same refusal in OpenAI\'s shape', async () => {
    const files = await Promise.all([0, 1].map(async (i) => openai.files.create({ file: await toFile(pdf(150_000), `c${i}.pdf`, { type: 'application/pdf' }), purpose: 'user_data' })));
    const before = messages.requests.length;
    const error = await openai.chat.completions
      .create({ model: 'ant/claude-up', max_tokens: 100, messages: [{ role: 'user', content: [...files.map((f) => ({ type: 'file' as const, file: { file_id: f.id } })), { type: 'text', text: 'Compare.' }] }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('request_too_large');
    expect(messages.requests.length).toBe(before);
  });

  it('a request with no files past the cap is told to send less, not to name fewer files (before: "name fewer or smaller files" alone)', async () => {
    const before = messages.requests.length;
    const error = await openai.chat.completions
      .create({ model: 'ant/claude-up', max_tokens: 100, messages: [{ role: 'user', content: 'a'.repeat(400_000) }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(413);
    expect(apiError.message).toContain("which takes at most 300000 (providers.ant.maxRequestBytes): send a smaller request (a shorter prompt or history, fewer or smaller files named in it)");
    expect(messages.requests.length).toBe(before);
  });

  it("a token count larger than the upstream takes is counted by the gateway, not uploaded to the upstream's counter", async () => {
    const [a, b] = await Promise.all([0, 1].map(async (i) => anthropic.files.upload({ file: await toFile(pdf(150_000), `t${i}.pdf`, { type: 'application/pdf' }) })));
    const before = messages.requests.length;
    const small = await anthropic.messages.countTokens({ model: 'ant/claude-up', messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: a.id } }, { type: 'text', text: 'Count.' }] }] });
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(messages.requests.slice(before).map((r) => r.path)).toEqual(['/v1/messages/count_tokens']); // one file fits: the upstream counts
    const large = await anthropic.messages.countTokens({
      model: 'ant/claude-up',
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: a.id } }, { type: 'document', source: { type: 'file', file_id: b.id } }, { type: 'text', text: 'Count.' }] }],
    });
    expect(large.input_tokens).toBeGreaterThan(0);
    expect(messages.requests.length).toBe(before + 1); // two do not: counted here, nothing sent
  });
});
