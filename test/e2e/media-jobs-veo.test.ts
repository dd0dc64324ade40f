import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGoogleMedia, VEO_MP4, type FakeGoogleMedia } from '../helpers/fake-google-media.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

type Video = OpenAI.Videos.Video & { usage?: { cost: number } };

describe('Veo video jobs through the google plugin (AI Studio and Vertex AI), with the OpenAI SDK', () => {
  const dir = tempDir('gw-veo-');
  const dataDir = path.join(dir, 'data');
  let veo: FakeGoogleMedia;
  let gw: SpawnedGateway;
  let client: OpenAI;
  let cli: (...args: string[]) => ReturnType<typeof runCli>;
  let key: string;

  beforeAll(async () => {
    veo = await startFakeGoogleMedia();
    const configFile = writeConfig(dir, {
      providers: {
        studio: { plugin: 'google', baseURL: veo.url, apiKey: veo.apiKey, headers: { 'x-gateway-test-tag': 'studio' } },
        vertex: { plugin: 'google', api: 'vertex', baseURL: veo.url, accessToken: veo.token, project: veo.project, location: veo.location, headers: { 'x-gateway-test-tag': 'vertex' } },
      },
      media: { jobs: { pollIntervalMs: 100 } },
    });
    gw = await spawnGateway({ configFile, dataDir });
    cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli('accounts', 'create', '--email', 'veo@example.test', '--password', 'correct horse', '--credits', '100000')).exitCode).toBe(0);
    key = (JSON.parse(String((await cli('keys', 'create', '--account', 'veo@example.test', '--json')).stdout)) as { key: string }).key;
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await veo?.close();
  });

  const ended = (ids: string[]) =>
    until('the jobs to end', async () => {
      const views = (await Promise.all(ids.map((id) => client.videos.retrieve(id)))) as Video[];
      return views.every((v) => (v.status === 'completed' || v.status === 'failed') && 'usage' in v) ? views : undefined;
    });

  it('lists the Veo models with their per-second prices', async () => {
    const models = (await client.models.list()).data.map((m) => m.id);
    expect(models).toEqual(expect.arrayContaining(['studio/veo-3.1-generate-preview', 'studio/veo-3.0-fast-generate-001', 'vertex/veo-2.0-generate-001']));
  });

  it('AI Studio: submits predictLongRunning, polls the operation, downloads the file URI with the key and its signed redirect without it, bills the seconds', async () => {
    const made = await client.videos.create({ model: 'studio/veo-3.1-generate-preview', prompt: 'a paper boat on a pond', seconds: '8', size: '1280x720', negativePrompt: 'rain' } as unknown as OpenAI.Videos.VideoCreateParams);
    const failed = await client.videos.create({ model: 'studio/veo-3.1-fast-generate-preview', prompt: 'please fail', seconds: '4' } as OpenAI.Videos.VideoCreateParams);
    const blocked = await client.videos.create({ model: 'studio/veo-3.1-fast-generate-preview', prompt: 'something blocked' } as OpenAI.Videos.VideoCreateParams);
    const [done, fail, block] = await ended([made.id, failed.id, blocked.id]);
    expect([done.status, fail.status, block.status]).toEqual(['completed', 'failed', 'failed']);
    expect(done).toMatchObject({ seconds: '8', size: '1280x720', progress: 100 });
    expect(fail.error).toEqual({ code: 'invalid_argument', message: 'The prompt could not be turned into a video.' });
    expect(block.error).toMatchObject({ code: 'content_filter', message: expect.stringContaining('usage guidelines') });
    // What went up: Veo's own body, the size as aspect ratio and resolution, the extra field as a parameter, one sample.
    const job = [...veo.jobs.values()].find((j) => j.instance.prompt === 'a paper boat on a pond')!;
    expect(job).toMatchObject({ model: 'veo-3.1-generate-preview', vertex: false, parameters: { sampleCount: 1, durationSeconds: 8, aspectRatio: '16:9', resolution: '720p', negativePrompt: 'rain' } });
    // No length named: OpenAI's default of 4 s (what the gateway held for), not Veo's 8.
    expect([...veo.jobs.values()].find((j) => j.instance.prompt === 'something blocked')?.parameters.durationSeconds).toBe(4);
    const bytes = Buffer.from(await (await client.videos.downloadContent(made.id)).arrayBuffer());
    expect(bytes).toEqual(VEO_MP4);
    expect(veo.requests.filter((r) => r.path.startsWith('/v1beta/')).every((r) => r.key)).toBe(true);
    // The provider's configured headers go on the submit, the polls and the download from its host; not to the signed URL.
    expect(new Set(veo.requests.filter((r) => r.path.startsWith('/v1beta/')).map((r) => r.tag))).toEqual(new Set(['studio']));
    expect(veo.requests.filter((r) => r.path.startsWith('/signed/')).map((r) => r.tag)).toEqual([undefined]);
    expect(veo.rejections).toEqual([]);
    // 8 s at $0.40/s; nothing for the failed and the filtered job.
    expect(done.usage?.cost).toBe(3200);
    expect(fail.usage).toEqual({ cost: 0 });
    expect(block.usage).toEqual({ cost: 0 });
  });

  it('a running Veo job cannot be cancelled or deleted (Google cannot stop it, and bills it): 409; it completes and is charged, then deletes', async () => {
    const made = await client.videos.create({ model: 'studio/veo-3.0-fast-generate-001', prompt: 'a kite over a hill', seconds: '4' } as OpenAI.Videos.VideoCreateParams);
    const auth = { authorization: `Bearer ${key}` };
    const cancel = await fetch(`${gw.url}/v1/videos/${made.id}/cancel`, { method: 'POST', headers: auth });
    expect(cancel.status).toBe(409);
    expect(((await cancel.json()) as { error: { message: string } }).error.message).toContain("'studio'");
    expect((await fetch(`${gw.url}/v1/videos/${made.id}`, { method: 'DELETE', headers: auth })).status).toBe(409);
    const [done] = await ended([made.id]);
    // 4 s at $0.15/s, what Google charges for the clip it made.
    expect([done.status, done.usage?.cost]).toEqual(['completed', 600]);
    expect(await client.videos.delete(made.id)).toMatchObject({ id: made.id, deleted: true });
  });

  it('AI Studio: a size Veo does not make is refused at once with the sizes it does, and nothing goes up', async () => {
    const before = veo.requests.length;
    const error = await client.videos
      .create({ model: 'studio/veo-3.0-generate-001', prompt: 'square', size: '1024x1024' } as unknown as OpenAI.Videos.VideoCreateParams)
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('1280x720');
    expect(veo.requests.length).toBe(before);
  });

  it("Veo 2 with no length makes its shortest, 5 s: the hold, the video object and the charge are 5 s from the start (OpenAI's 4 s default is not a Veo 2 length)", async () => {
    // $0.35/s: credits for 4 s (1,400) but not 5 s (1,750). Before, the 4 s hold let it in and 5 s was charged past the balance.
    expect((await cli('accounts', 'create', '--email', 'veo2@example.test', '--password', 'correct horse', '--credits', '1500')).exitCode).toBe(0);
    const short = (JSON.parse(String((await cli('keys', 'create', '--account', 'veo2@example.test', '--json')).stdout)) as { key: string }).key;
    const refused = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: short, maxRetries: 0 }).videos.create({ model: 'vertex/veo-2.0-generate-001', prompt: 'a heron' }).catch((error: unknown) => error);
    expect([(refused as { status?: number }).status, (refused as { code?: string }).code]).toEqual([402, 'insufficient_balance']);

    const made = await client.videos.create({ model: 'vertex/veo-2.0-generate-001', prompt: 'a heron in the reeds' });
    expect(made.seconds).toBe('5');
    const job = [...veo.jobs.values()].find((j) => j.instance.prompt === 'a heron in the reeds');
    expect(job?.parameters.durationSeconds).toBe(5);
    const [done] = await ended([made.id]);
    expect([done.status, done.seconds, done.usage?.cost]).toEqual(['completed', '5', 1750]);
    expect(veo.rejections).toEqual([]);
  });

  it('Vertex AI: polls with fetchPredictOperation and takes the clip inline, or from Cloud Storage with storageUri', async () => {
    const inline = await client.videos.create({ model: 'vertex/veo-3.0-fast-generate-001', prompt: 'a lighthouse at dusk', seconds: '6' } as unknown as OpenAI.Videos.VideoCreateParams);
    const stored = await client.videos.create({ model: 'vertex/veo-3.0-generate-001', prompt: 'a kite', seconds: '4', storageUri: 'gs://veo-bucket/out' } as unknown as OpenAI.Videos.VideoCreateParams);
    const [a, b] = await ended([inline.id, stored.id]);
    expect([a.status, b.status]).toEqual(['completed', 'completed']);
    expect(Buffer.from(await (await client.videos.downloadContent(inline.id)).arrayBuffer())).toEqual(VEO_MP4);
    expect(Buffer.from(await (await client.videos.downloadContent(stored.id)).arrayBuffer())).toEqual(VEO_MP4);
    const vertexCalls = veo.requests.filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/download/'));
    expect(vertexCalls.length).toBeGreaterThan(4);
    expect(vertexCalls.every((r) => r.bearer)).toBe(true);
    expect(new Set(vertexCalls.filter((r) => r.path.startsWith('/v1/')).map((r) => r.tag))).toEqual(new Set(['vertex']));
    expect(vertexCalls.some((r) => r.path.endsWith(':fetchPredictOperation'))).toBe(true);
    expect(veo.rejections).toEqual([]);
    // 6 s at $0.15/s and 4 s at $0.40/s.
    expect(a.usage?.cost).toBe(900);
    expect(b.usage?.cost).toBe(1600);
  });
});
