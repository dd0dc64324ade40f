/**
 * The credit hold covers transcriptions and translations, through the real CLI: whisper-1 on the
 * `openai` plugin against a fake OpenAI that bills 4 seconds of audio for any file, priced at
 * $0.06 a minute (1 credit a second). The hold is read from the upload's own header: a 4-second
 * WAV on 3 credits is refused with 402 before any upstream call, where before it ran on "something
 * left" and was charged at most what was left. A file whose duration cannot be read keeps that
 * rule (docs/billing.md).
 */
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeWav } from '../../plugins/mock/wav.ts';
import { creditsOf } from '../helpers/credit-holds.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startFakeMediaUpstream, type FakeMediaUpstream } from '../media/fake-media-upstream.ts';

/** What the fake bills for any file (usage.seconds), at 1 credit a second. */
const BILLED_SECONDS = 4;
/** A 4-second 8 kHz WAV, generated here: its header says 4 s. */
const WAV = encodeWav(Buffer.alloc(8000 * 2 * BILLED_SECONDS), 8000);

interface Answer {
  status: number;
  error?: { code: string; details?: { required?: number } };
}

describe('the credit hold covers transcriptions by the audio duration (bin/gateway, fake OpenAI)', () => {
  let upstream: FakeMediaUpstream;
  let gw: SpawnedGateway;
  let cli: (args: string[]) => ReturnType<typeof runCli>;

  const keyFor = async (email: string, credits: number): Promise<string> => {
    expect((await cli(['accounts', 'create', '--email', email, '--tier', 'enterprise', '--credits', String(credits)])).exitCode).toBe(0);
    const created = await cli(['keys', 'create', '--account', email, '--json']);
    return (JSON.parse(String(created.stdout)) as { key: string }).key;
  };
  const transcribe = async (key: string, file: Buffer, route = '/v1/audio/transcriptions'): Promise<Answer> => {
    const form = new FormData();
    form.set('model', 'up/whisper-1');
    form.set('file', new Blob([new Uint8Array(file)], { type: 'audio/wav' }), 'speech.wav');
    const res = await fetch(`${gw.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const text = await res.text();
    return { status: res.status, ...(res.status === 200 ? {} : (JSON.parse(text) as Pick<Answer, 'error'>)) };
  };

  beforeAll(async () => {
    upstream = await startFakeMediaUpstream();
    const dir = tempDir('gw-transcription-hold-');
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'upstream-secret', models: [{ id: 'whisper-1', type: 'audio', pricing: { audioMinute: 0.06 } }] } },
      routing: { retry: { attempts: 1 } },
    });
    cli = (args) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('too few credits for the WAV duration: 402 insufficient_balance naming the hold, before any upstream call', async () => {
    const key = await keyFor('short@example.com', 3);
    for (const route of ['/v1/audio/transcriptions', '/v1/audio/translations']) {
      const answer = await transcribe(key, WAV, route);
      expect(answer.status).toBe(402);
      expect(answer.error?.code).toBe('insufficient_balance');
      expect(answer.error?.details?.required).toBeCloseTo(BILLED_SECONDS, 6);
    }
    expect(upstream.requests).toHaveLength(0);
    expect(await creditsOf(gw.url, key)).toBe(3);
  });

  it('enough credits: served and charged what the upstream billed, as before', async () => {
    const key = await keyFor('enough@example.com', 10);
    expect((await transcribe(key, WAV)).status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(await creditsOf(gw.url, key)).toBeCloseTo(10 - BILLED_SECONDS, 6);
  });

  it('five concurrent 4-second files on 10 credits: only those the balance can hold run, each charged in full', async () => {
    const key = await keyFor('many@example.com', 10);
    const answers = await Promise.all(Array.from({ length: 5 }, () => transcribe(key, WAV)));
    const served = answers.filter((a) => a.status === 200).length;
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThanOrEqual(2);
    expect(new Set(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.error?.code}`))).toEqual(new Set(['402 insufficient_balance']));
    expect(await creditsOf(gw.url, key)).toBeCloseTo(10 - served * BILLED_SECONDS, 6);
  });

  it('a file whose duration cannot be read keeps the old rule: needs something left, charged at most what is left', async () => {
    const key = await keyFor('unknown@example.com', 1);
    expect((await transcribe(key, Buffer.from('not a header any parser knows'))).status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(await creditsOf(gw.url, key)).toBe(0);
  });
});
