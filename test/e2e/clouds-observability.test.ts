import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAzure, type FakeAzure } from '../helpers/fake-azure.ts';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { googleError } from '../helpers/fake-gemini.ts';
import { createServiceAccountKey, startFakeTokenEndpoint, type FakeTokenEndpoint } from '../helpers/fake-google-token.ts';
import { startVertexFake, type VertexFake } from '../helpers/fake-vertex.ts';
import { parsePrometheus, seriesOf } from '../helpers/prometheus.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

type Json = Record<string, any>;

const AZURE_KEY = 'azure-key-0123456789';
const BEDROCK_CREDENTIALS = { accessKeyId: 'ASIAFAKEBEDROCK', secretAccessKey: 'fake/secret+key', sessionToken: 'FwoGZXIvYXdzEFAKETOKEN' };
const LLAMA = 'meta.llama3-3-70b-instruct-v1:0';
const CLAUDE_VERTEX = 'claude-sonnet-4-5@20250929';

interface Health {
  status: string;
  provider_health: Array<{ id: string; state: string; models: number; circuits: Array<{ model: string; state: string; failures: number; last_error?: { code: string; status?: number } }> }>;
}

/**
 * Issue 23 §4 across the clouds: Azure, Bedrock and Vertex AI providers in one gateway show in
 * health and circuits, metrics labels and the request log like any provider, under the
 * gateway's model id (an Azure deployment name never becomes a label); their throttles open
 * their circuits.
 */
describe('the clouds in health, circuits, metrics and the request log', () => {
  let azure: FakeAzure;
  let bedrock: FakeBedrock;
  let tokens: FakeTokenEndpoint;
  let vertex: VertexFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let requestLog: string;

  beforeAll(async () => {
    azure = await startFakeAzure({ deployments: { 'prod-gpt41': { model: 'gpt-4.1', maxOutput: 32_768, reasoning: false } }, apiKey: AZURE_KEY, finalText: 'from azure' });
    bedrock = await startFakeBedrock({ region: 'us-east-1', credentials: [BEDROCK_CREDENTIALS] });
    const dir = tempDir();
    let key!: ReturnType<typeof createServiceAccountKey>;
    tokens = await startFakeTokenEndpoint(() => ({ publicKey: key.publicKey, clientEmail: key.json.client_email }));
    key = createServiceAccountKey(dir, tokens.tokenUri, 'gw-clouds');
    vertex = await startVertexFake({ tokens, project: 'gw-clouds', location: 'us-east5', claude: { models: { [CLAUDE_VERTEX]: { maxOutput: 64_000, reasoning: true } }, finalText: 'from vertex' } });
    requestLog = path.join(dir, 'requests.jsonl');
    gw = await spawnGateway({
      config: {
        providers: {
          azure: { plugin: 'azure', endpoint: azure.url, apiKey: AZURE_KEY, models: [{ id: 'gpt-4.1', deployment: 'prod-gpt41' }] },
          bedrock: { plugin: 'bedrock', baseURL: bedrock.url, region: 'us-east-1', ...BEDROCK_CREDENTIALS, models: [LLAMA] },
          vertex: { plugin: 'google', api: 'vertex', location: 'us-east5', credentials: key.file, baseURL: vertex.url, models: [CLAUDE_VERTEX] },
        },
        routing: { breaker: { failureThreshold: 2, cooldownMs: 600_000 }, retry: { attempts: 1 } },
        logging: { requests: requestLog },
      },
      env: { GOOGLE_APPLICATION_CREDENTIALS: '' },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await azure?.close();
    await bedrock?.close();
    await vertex?.close();
    await tokens?.close();
  });

  const health = async () => (await (await fetch(`${gw.url}/health`)).json()) as Health;
  const chat = (model: string, content: string) => openai.chat.completions.create({ model, messages: [{ role: 'user', content }] });

  it('serves all three, then their throttles open their circuits, labelled by provider and model id', async () => {
    expect((await chat('azure/gpt-4.1', 'hi')).choices[0].message.content).toBe('from azure');
    expect((await chat(`bedrock/${LLAMA}`, 'hi')).choices[0].message.content).toBe('Converse heard: hi');
    expect((await chat(`vertex/${CLAUDE_VERTEX}`, 'hi')).choices[0].message.content).toBe('from vertex');
    expect((await health()).provider_health).toEqual(
      expect.arrayContaining([
        { id: 'azure', state: 'ok', models: 1, circuits: [] },
        { id: 'bedrock', state: 'ok', models: 1, circuits: [] },
        { id: 'vertex', state: 'ok', models: 1, circuits: [] },
      ]),
    );

    bedrock.faults.throttle = 2;
    vertex.failNext(googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.'), 2);
    for (let i = 0; i < 2; i++) {
      expect(await chat('azure/gpt-4.1', 'THROTTLE').catch((e: { status: number }) => e.status)).toBe(429);
      expect(await chat(`bedrock/${LLAMA}`, 'x').catch((e: { status: number }) => e.status)).toBe(429);
      expect(await chat(`vertex/${CLAUDE_VERTEX}`, 'x').catch((e: { status: number }) => e.status)).toBe(429);
    }
    const after = await health();
    const circuitOf = (provider: string) => after.provider_health.find((p) => p.id === provider)!.circuits;
    expect(circuitOf('azure')).toEqual([expect.objectContaining({ model: 'azure/gpt-4.1', state: 'open', failures: 2, last_error: { code: 'rate_limit_exceeded', status: 429 } })]);
    expect(circuitOf('bedrock')).toEqual([expect.objectContaining({ model: `bedrock/${LLAMA}`, state: 'open', failures: 2, last_error: expect.objectContaining({ code: 'rate_limit_exceeded' }) })]);
    expect(circuitOf('vertex')).toEqual([expect.objectContaining({ model: `vertex/${CLAUDE_VERTEX}`, state: 'open', failures: 2, last_error: expect.objectContaining({ code: 'rate_limit_exceeded' }) })]);
    expect(after.status).toBe('unavailable');

    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text());
    const attempts = seriesOf(metrics, 'gateway_upstream_attempts_total').map((s) => s.labels);
    expect(attempts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ provider: 'azure', model: 'gpt-4.1', outcome: 'ok' }),
        expect.objectContaining({ provider: 'azure', model: 'gpt-4.1', outcome: 'error' }),
        expect.objectContaining({ provider: 'bedrock', model: LLAMA, outcome: 'ok' }),
        expect.objectContaining({ provider: 'bedrock', model: LLAMA, outcome: 'error' }),
        expect.objectContaining({ provider: 'vertex', model: CLAUDE_VERTEX, outcome: 'ok' }),
        expect.objectContaining({ provider: 'vertex', model: CLAUDE_VERTEX, outcome: 'error' }),
      ]),
    );
    const everyLabel = [...metrics.values()].flatMap((family) => family.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    expect(everyLabel).not.toContain('prod-gpt41');

    const lines = await until('the request log lines', async () => {
      const text = fs.existsSync(requestLog) ? fs.readFileSync(requestLog, 'utf8') : '';
      const parsed = text.trim() === '' ? [] : text.trim().split('\n').map((l) => JSON.parse(l) as Json);
      const inference = parsed.filter((l) => l.route === '/v1/chat/completions');
      return inference.length >= 9 ? inference : undefined;
    });
    const served = lines.filter((l) => l.status === 200);
    expect(served.map((l) => [l.provider, l.resolved_model]).sort()).toEqual([
      ['azure', 'azure/gpt-4.1'],
      ['bedrock', `bedrock/${LLAMA}`],
      ['vertex', `vertex/${CLAUDE_VERTEX}`],
    ]);
    expect(served.every((l) => l.input_tokens > 0 && l.output_tokens > 0)).toBe(true);
    expect(lines.filter((l) => l.error_code === 'rate_limit_exceeded').map((l) => l.provider).sort()).toEqual(['azure', 'azure', 'bedrock', 'bedrock', 'vertex', 'vertex']);
  });
});
