/**
 * Done-when of issue 21 §2 through the real CLI: the toy fourth wire format (test/formats/toy),
 * copied into a temp directory outside the repo and loaded by a config as a plugin that brings
 * it (`wireFormats`), works as an inbound and an upstream format — passthrough, and converted
 * with each of the other three, JSON and streamed — with nothing in src/ naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import type { FakeUpstream } from '../helpers/fake-upstream.ts';
import { fixtureUpstream, toyProviders, toyRecords } from '../formats/toy-helpers.ts';

type Json = Record<string, any>;

describe('a fourth wire format brought by a plugin in another directory, through the CLI', () => {
  let gw: SpawnedGateway;
  let messages: FakeUpstream;
  let responses: FakeUpstream;

  beforeAll(async () => {
    messages = await fixtureUpstream('messages');
    responses = await fixtureUpstream('responses');
    const project = tempDir('gw-toy-');
    fs.cpSync(path.join(REPO_ROOT, 'test/formats/toy'), path.join(project, 'toy'), { recursive: true });
    const configFile = writeConfig(project, { providers: toyProviders('./toy/plugin.ts', messages, responses) });
    gw = await spawnGateway({ configFile, cwd: project });
  });
  afterAll(async () => {
    await gw?.stop();
    await messages?.close();
    await responses?.close();
  });

  it('is named nowhere in src/ (the plugin and its format live outside the repo)', () => {
    const files = fs.readdirSync(path.join(REPO_ROOT, 'src'), { recursive: true }).map(String).filter((f) => /\.tsx?$/.test(f));
    expect(files.filter((f) => /\btoy\b/i.test(fs.readFileSync(path.join(REPO_ROOT, 'src', f), 'utf8')))).toEqual([]);
  });

  const toyCall = (model: string, stream: boolean) =>
    fetch(`${gw.url}/toy/v1/chat/${model}:${stream ? 'stream' : 'talk'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toy-key': gw.key! },
      body: JSON.stringify({ say: [{ who: 'rules', text: 'be brief' }, { who: 'user', text: 'hello toy' }] }),
    });

  const UPSTREAMS = [
    { model: 'toy/toy-1', format: 'toy (passthrough)', reply: 'toy heard: hello toy' },
    { model: 'mock/echo', format: 'chat', reply: 'hello toy' },
    { model: 'anth/claude-x', format: 'messages', reply: 'Héllo wörld 👋!' },
    { model: 'resp/gpt-resp', format: 'responses', reply: undefined },
  ];
  for (const upstream of UPSTREAMS) {
    it(`toy client → ${upstream.format} upstream, JSON and streamed in binary frames`, async () => {
      const res = await toyCall(upstream.model, false);
      const body = (await res.json()) as Json;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.why).toBe('done');
      if (upstream.reply) expect(body.reply).toBe(upstream.reply);
      else expect(body.reply.length).toBeGreaterThan(0);

      const streamed = await toyCall(upstream.model, true);
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get('content-type')).toBe('application/x-toy-frames');
      const records = toyRecords(Buffer.from(await streamed.arrayBuffer()));
      expect(records[0].event).toBe('begin');
      expect(records.at(-1)).toMatchObject({ event: 'end', data: { why: 'done' } });
      const text = records.filter((r) => r.event === 'piece').map((r) => r.data.text).join('');
      expect(text).toBe(upstream.reply ?? body.reply);
    });
  }

  it("a key scoped to the plugin's format (keys create --endpoints toy, as the help lists it) reaches the toy route only", async () => {
    // The CLI learns the config's plugin formats before it checks --endpoints (it said "an endpoint is one of chat, …" before).
    const cli = (args: string[]) => runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, ...args], { cwd: path.dirname(gw.configFile) });
    const help = await cli(['keys', 'create', '--help']);
    expect(String(help.stdout).replace(/\s+/g, ' ')).toMatch(/chat, responses, messages, gemini, completions, toy, /);
    const created = await cli(['keys', 'create', '--name', 'toy-only', '--endpoints', 'toy', '--json']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    const key = (JSON.parse(String(created.stdout)) as { key: string; endpoints: string[] });
    expect(key.endpoints).toEqual(['toy']);
    const toy = await fetch(`${gw.url}/toy/v1/chat/mock/echo:talk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-toy-key': key.key }, body: JSON.stringify({ say: [{ who: 'user', text: 'scoped' }] }) });
    expect(toy.status).toBe(200);
    const chat = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` }, body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'x' }] }) });
    expect(chat.status).toBe(403);
    const set = await cli(['keys', 'set', (JSON.parse(String(created.stdout)) as { id: string }).id, '--endpoints', 'toy,chat']);
    expect(set.exitCode, String(set.stderr)).toBe(0);
  });

  it("is labelled by its id in /metrics (api_format, docs/observability.md) and counted as a chat operation", async () => {
    const text = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.key}` } })).text();
    expect(text).toMatch(/^gateway_requests_total\{route="\/toy\/v1\/chat\/\*\*",status="200",api_format="toy"\} [1-9]/m);
    expect(text).toMatch(/^gen_ai_server_request_duration_seconds_count\{gen_ai_operation_name="chat",gen_ai_request_model="toy\/toy-1"/m);
  });

  it("a request with no key on the toy route is told the format's own credential too", async () => {
    const res = await fetch(`${gw.url}/toy/v1/chat/mock/echo:talk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ say: [{ who: 'user', text: 'x' }] }) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as Json).error.message).toBe('No API key provided. Send it as "Authorization: Bearer sk-…", "X-API-Key: sk-…", "x-toy-key: sk-…" or ?toy_key=sk-….');
  });

  it('Chat client (openai SDK) → toy upstream, JSON and streamed', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'toy/toy-1', messages: [{ role: 'user', content: 'hi from chat' }] });
    expect(answer.choices[0].message.content).toBe('toy heard: hi from chat');
    let text = '';
    for await (const chunk of await client.chat.completions.create({ model: 'toy/toy-1', stream: true, messages: [{ role: 'user', content: 'hi from chat' }] })) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('toy heard: hi from chat');
  });

  it('Responses client (openai SDK) → toy upstream, JSON and streamed', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const answer = await client.responses.create({ model: 'toy/toy-1', input: 'hi from responses', store: false });
    expect(answer.output_text).toBe('toy heard: hi from responses');
    const events: string[] = [];
    let text = '';
    for await (const event of await client.responses.create({ model: 'toy/toy-1', input: 'hi from responses', store: false, stream: true })) {
      events.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe('toy heard: hi from responses');
    expect(events.at(-1)).toBe('response.completed');
  });

  it('Messages client (anthropic SDK) → toy upstream, JSON and streamed', async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
    const answer = await client.messages.create({ model: 'toy/toy-1', max_tokens: 50, messages: [{ role: 'user', content: 'hi from messages' }] });
    expect(answer.content[0]).toMatchObject({ type: 'text', text: 'toy heard: hi from messages' });
    const stream = client.messages.stream({ model: 'toy/toy-1', max_tokens: 50, messages: [{ role: 'user', content: 'hi from messages' }] });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'toy heard: hi from messages' });
    expect(final.stop_reason).toBe('end_turn');
  });
});
