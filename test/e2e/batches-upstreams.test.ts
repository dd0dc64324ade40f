import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger, type LedgerEntry } from '../../src/store/index.ts';
import { startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** The last user message's text, whatever the format sent it as. */
function lastUserText(request: ReceivedRequest): string {
  const messages = (request.json?.messages ?? []) as Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
  const last = messages.filter((m) => m.role === 'user').at(-1);
  if (!last) return '';
  return typeof last.content === 'string' ? last.content : last.content.map((p) => p.text ?? '').join('');
}

/** An OpenAI Chat Completions upstream: answers `echo: <last user text>`, usage 10 in / 20 out. */
function openaiReply(request: ReceivedRequest) {
  return {
    json: {
      id: `chatcmpl-up${Math.random().toString(36).slice(2, 8)}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: String(request.json?.model),
      choices: [{ index: 0, message: { role: 'assistant', content: `echo: ${lastUserText(request)}`, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
    },
  };
}

/** An Anthropic Messages upstream: the same answer and usage in its own shape. */
function anthropicReply(request: ReceivedRequest) {
  return {
    json: {
      id: `msg_up${Math.random().toString(36).slice(2, 8)}`,
      type: 'message',
      role: 'assistant',
      model: String(request.json?.model),
      content: [{ type: 'text', text: `echo: ${lastUserText(request)}` }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 20 },
    },
  };
}

type OutputLine = { custom_id: string; error: unknown; response: { status_code: number; request_id: string; body: Record<string, any> } };

/**
 * Emulated batches through real provider plugins against fakes that speak the exact wire
 * formats: the `openai` plugin, a Chat batch converted to an Anthropic-format upstream, a
 * `/v1/messages` batch both ways, and billing at the multiplier against live prices.
 */
describe('batches through the openai and anthropic plugins (official openai client, fake upstreams)', () => {
  let openaiUp: FakeUpstream;
  let anthropicUp: FakeUpstream;
  let gw: SpawnedGateway | undefined;
  let client: OpenAI;
  let key: string;
  let dataDir: string;

  beforeAll(async () => {
    openaiUp = await startFakeUpstream(openaiReply);
    anthropicUp = await startFakeUpstream(anthropicReply);
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    // Credits per 1,000 tokens: a line costs 10 × 1 + 20 × 3 = 70 thousandths live, half in a batch.
    const pricing = { input: 1, output: 3 };
    const configFile = writeConfig(dir, {
      providers: {
        oa: { plugin: 'openai', baseURL: `${openaiUp.url}/v1`, apiKey: 'sk-upstream-openai', models: [{ id: 'gpt-up', pricing }] },
        an: { plugin: 'anthropic', baseURL: anthropicUp.url, apiKey: 'sk-upstream-anthropic', models: [{ id: 'claude-up', pricing }] },
      },
      batches: { priceMultiplier: 0.5 },
    });
    const cli = async (args: string[]) => String((await runCli(['--config', configFile, '--data-dir', dataDir, ...args])).stdout);
    await cli(['accounts', 'create', '--email', 'u@example.com', '--tier', 'enterprise', '--credits', '1000']);
    key = (JSON.parse(await cli(['keys', 'create', '--account', 'u@example.com', '--json'])) as { key: string }).key;
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await openaiUp?.close();
    await anthropicUp?.close();
  });

  const runBatch = async (endpoint: string, lines: Array<{ id: string; model: string; text: string }>) => {
    // The same body is valid Chat and Messages.
    const body = (l: { model: string; text: string }) => ({ model: l.model, max_tokens: 64, messages: [{ role: 'user', content: l.text }] });
    const jsonl = lines.map((l) => JSON.stringify({ custom_id: l.id, method: 'POST', url: endpoint, body: body(l) })).join('\n');
    const input = await client.files.create({ file: await toFile(Buffer.from(jsonl), 'in.jsonl'), purpose: 'batch' });
    const created = await client.batches.create({ input_file_id: input.id, endpoint: endpoint as '/v1/chat/completions', completion_window: '24h' });
    let batch = created;
    for (let i = 0; i < 600 && !['completed', 'failed', 'expired', 'cancelled'].includes(batch.status); i++) {
      await new Promise((r) => setTimeout(r, 50));
      batch = await client.batches.retrieve(created.id);
    }
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: lines.length, completed: lines.length, failed: 0 });
    expect(batch.error_file_id).toBeNull();
    const text = await (await client.files.content(batch.output_file_id!)).text();
    const out = new Map(
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as OutputLine)
        .map((l) => [l.custom_id, l]),
    );
    return { batch, out };
  };

  it('a chat-completions batch through the openai plugin: upstream model id and key, answers in the output file', async () => {
    openaiUp.requests.length = 0;
    const { out } = await runBatch('/v1/chat/completions', [
      { id: 'a', model: 'oa/gpt-up', text: 'first' },
      { id: 'b', model: 'oa/gpt-up', text: 'second' },
      { id: 'c', model: 'oa/gpt-up', text: 'third' },
    ]);
    expect(openaiUp.requests).toHaveLength(3);
    for (const r of openaiUp.requests) {
      expect(r.path).toBe('/v1/chat/completions');
      expect(r.headers.authorization).toBe('Bearer sk-upstream-openai');
      expect(r.json?.model).toBe('gpt-up');
      expect(r.json?.stream ?? false).toBe(false);
    }
    for (const [id, text] of [['a', 'first'], ['b', 'second'], ['c', 'third']]) {
      const line = out.get(id)!;
      expect(line.error).toBeNull();
      expect(line.response.status_code).toBe(200);
      expect(line.response.body.object).toBe('chat.completion');
      expect(line.response.body.choices[0].message.content).toBe(`echo: ${text}`);
      expect(line.response.body.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 20 });
    }
  });

  it('a chat-completions batch whose model an Anthropic-format upstream serves: converted both ways', async () => {
    anthropicUp.requests.length = 0;
    const { out } = await runBatch('/v1/chat/completions', [
      { id: 'x', model: 'an/claude-up', text: 'bonjour' },
      { id: 'y', model: 'an/claude-up', text: 'hola' },
    ]);
    expect(anthropicUp.requests).toHaveLength(2);
    for (const r of anthropicUp.requests) {
      expect(r.path).toBe('/v1/messages');
      expect(r.headers['x-api-key']).toBe('sk-upstream-anthropic');
      expect(r.json).toMatchObject({ model: 'claude-up', max_tokens: 64 });
    }
    expect(anthropicUp.requests.map(lastUserText).sort()).toEqual(['bonjour', 'hola']);
    const x = out.get('x')!;
    expect(x.response.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'echo: bonjour' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 20 } });
  });

  it('a /v1/messages batch: passed through to the Anthropic upstream, converted to the OpenAI one', async () => {
    anthropicUp.requests.length = 0;
    openaiUp.requests.length = 0;
    const { out } = await runBatch('/v1/messages', [
      { id: 'm-claude', model: 'an/claude-up', text: 'to claude' },
      { id: 'm-gpt', model: 'oa/gpt-up', text: 'to gpt' },
    ]);
    expect(anthropicUp.requests.map((r) => r.path)).toEqual(['/v1/messages']);
    expect(openaiUp.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    for (const [id, text] of [['m-claude', 'to claude'], ['m-gpt', 'to gpt']]) {
      const body = out.get(id)!.response.body;
      expect(body).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: `echo: ${text}` }], usage: { input_tokens: 10, output_tokens: 20 } });
    }
  });

  it('billing: each line draws batches.priceMultiplier × what the same request costs live, and the balance moves by exactly that', async () => {
    const anthropic = new Anthropic({ baseURL: gw!.url, apiKey: key, maxRetries: 0 });
    const before = (await (await fetch(`${gw!.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { credits: { balance: number } } };
    // The same requests live: Chat on each upstream, and Messages on each.
    await client.chat.completions.create({ model: 'oa/gpt-up', max_tokens: 64, messages: [{ role: 'user', content: 'live' }] });
    await client.chat.completions.create({ model: 'an/claude-up', max_tokens: 64, messages: [{ role: 'user', content: 'live' }] });
    await anthropic.messages.create({ model: 'an/claude-up', max_tokens: 64, messages: [{ role: 'user', content: 'live' }] });
    await anthropic.messages.create({ model: 'oa/gpt-up', max_tokens: 64, messages: [{ role: 'user', content: 'live' }] });
    const { batch: chatBatch } = await runBatch('/v1/chat/completions', [
      { id: 'p1', model: 'oa/gpt-up', text: 'live' },
      { id: 'p2', model: 'an/claude-up', text: 'live' },
    ]);
    const { batch: messagesBatch } = await runBatch('/v1/messages', [
      { id: 'q1', model: 'an/claude-up', text: 'live' },
      { id: 'q2', model: 'oa/gpt-up', text: 'live' },
    ]);
    const after = (await (await fetch(`${gw!.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { credits: { balance: number } } };
    await gw!.stop();
    gw = undefined;

    const ledger = readLedger(path.join(dataDir, 'usage.jsonl'));
    const liveOf = (route: string, model: string) => ledger.filter((l) => l.endpoint === route && l.model === model).at(-1)!;
    const linesOf = (batchId: string) => ledger.filter((l) => l.request_id.startsWith(`${batchId}:`));
    const check = (line: LedgerEntry, live: LedgerEntry) => {
      expect(live.cost_credits).toBeCloseTo(0.07, 9);
      expect(line.price_multiplier).toBe(0.5);
      expect(line.charged_credits).toBeCloseTo(live.charged_credits * 0.5, 9);
    };
    const chatLines = linesOf(chatBatch.id);
    expect(chatLines).toHaveLength(2);
    for (const l of chatLines) check(l, liveOf('/v1/chat/completions', l.model));
    const messagesLines = linesOf(messagesBatch.id);
    expect(messagesLines).toHaveLength(2);
    for (const l of messagesLines) check(l, liveOf('/v1/messages', l.model));
    // What left the balance is exactly the ledger's charges: four live requests at full price, four lines at half.
    expect(before.data.credits.balance - after.data.credits.balance).toBeCloseTo(4 * 0.07 + 4 * 0.035, 9);
  });
});
