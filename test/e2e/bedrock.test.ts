/**
 * Issue 23 (Bedrock): the real CLI with the `bedrock` plugin against a strict Bedrock fake that
 * recomputes SigV4 signatures and streams real event-stream frames split across TCP writes.
 * Claude goes through InvokeModel in the Messages format, Llama through Converse; the official
 * `openai` and `@anthropic-ai/sdk` clients talk to the gateway on all three routes.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { REDACTED, SIGNATURE } from '../helpers/fake-bedrock-replies.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const CLAUDE = 'bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const LLAMA = 'bedrock/meta.llama3-3-70b-instruct-v1:0';
const CREDENTIALS = { accessKeyId: 'ASIAFAKEBEDROCK', secretAccessKey: 'fake/secret+key', sessionToken: 'FwoGZXIvYXdzEFAKETOKEN' };

describe('bedrock plugin (real CLI, strict Bedrock fake)', () => {
  let fake: FakeBedrock;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    fake = await startFakeBedrock({ region: 'us-east-1', credentials: [CREDENTIALS], apiKeys: ['ABSKfakebedrockapikey'] });
    gw = await spawnGateway({
      config: {
        providers: {
          bedrock: { plugin: 'bedrock', baseURL: fake.url, region: 'us-east-1', ...CREDENTIALS, models: [CLAUDE.slice(8), LLAMA.slice(8)] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.rejections.length = 0;
  });

  describe('Claude through InvokeModel (Messages)', () => {
    it('answers a Messages client as a passthrough, JSON and streamed', async () => {
      const message = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hello bedrock' }] });
      expect(message.content).toEqual([{ type: 'text', text: 'Bedrock Claude heard: hello bedrock' }]);
      expect(fake.requests[0].path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
      expect(fake.requests[0].json).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100 });
      expect(fake.requests[0].json).not.toHaveProperty('model');
      const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'stream it' }] });
      const text: string[] = [];
      stream.on('text', (t) => text.push(t));
      const final = await stream.finalMessage();
      expect(text.join('')).toBe('Bedrock Claude heard: stream it');
      expect(text.length).toBeGreaterThan(2);
      expect(final.usage.output_tokens).toBe(9);
      expect(fake.requests[1].action).toBe('invoke-with-response-stream');
      expect(fake.rejections).toEqual([]);
    });

    it('answers Chat and Responses clients through conversion', async () => {
      const chat = await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'from chat' }] });
      expect(chat.choices[0].message.content).toBe('Bedrock Claude heard: from chat');
      const chunks = await openai.chat.completions.create({ model: CLAUDE, stream: true, messages: [{ role: 'user', content: 'chat stream' }] });
      let streamed = '';
      for await (const chunk of chunks) streamed += chunk.choices[0]?.delta.content ?? '';
      expect(streamed).toBe('Bedrock Claude heard: chat stream');
      const response = await openai.responses.create({ model: CLAUDE, input: 'from responses' });
      expect(response.output_text).toBe('Bedrock Claude heard: from responses');
      expect(fake.rejections).toEqual([]);
    });
  });

  describe('Llama through Converse', () => {
    it('answers Chat, Responses and Messages clients, JSON and streamed', async () => {
      const chat = await openai.chat.completions.create({ model: LLAMA, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi llama' }] });
      expect(chat.choices[0].message.content).toBe('Converse heard: hi llama');
      expect(chat.model).toBe(LLAMA);
      expect(fake.requests[0].path).toBe('/model/meta.llama3-3-70b-instruct-v1%3A0/converse');
      expect(fake.requests[0].json).toMatchObject({ system: [{ text: 'be brief' }], messages: [{ role: 'user', content: [{ text: 'hi llama' }] }] });
      const chunks = await openai.chat.completions.create({ model: LLAMA, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream llama' }] });
      let streamed = '';
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of chunks) {
        streamed += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(streamed).toBe('Converse heard: stream llama');
      expect(usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 9 });
      const response = await openai.responses.create({ model: LLAMA, input: 'from responses' });
      expect(response.output_text).toBe('Converse heard: from responses');
      const message = await anthropic.messages.create({ model: LLAMA, max_tokens: 50, messages: [{ role: 'user', content: 'from messages' }] });
      expect(message.content).toEqual([{ type: 'text', text: 'Converse heard: from messages' }]);
      expect(fake.rejections).toEqual([]);
    });
  });
});
