import { createHmac } from 'node:crypto';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_JPEG, FAKE_MP4, startFakeVideosUpstream, startWebhookReceiver, type FakeVideosUpstream } from '../helpers/fake-videos-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/** Standard Webhooks verification written out (independent of the library that signs). */
function verify(secret: string, headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest('base64');
  return String(headers['webhook-signature']).split(' ').some((s) => s === `v1,${expected}`);
}

describe('media jobs against a fake /v1/videos upstream (openai plugin), with signed webhooks', () => {
  const dir = tempDir('gw-media-upstream-');
  const dataDir = path.join(dir, 'data');
  let upstream: FakeVideosUpstream;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let gw: SpawnedGateway;
  let key: string;

  beforeAll(async () => {
    upstream = await startFakeVideosUpstream();
    receiver = await startWebhookReceiver(1); // the first delivery is refused: it is retried
    const configFile = writeConfig(dir, {
      providers: {
        vid: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: upstream.key, models: [{ id: 'sora-2', type: 'video_generation', pricing: { perSecond: 0.1 } }] },
      },
      media: { jobs: { webhookPrivateAddresses: true, pollIntervalMs: 100 } },
    });
    gw = await spawnGateway({ configFile, dataDir });
    const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli('accounts', 'create', '--email', 'v@example.test', '--password', 'correct horse', '--credits', '5000')).exitCode).toBe(0);
    key = (JSON.parse(String((await cli('keys', 'create', '--account', 'v@example.test', '--json')).stdout)) as { key: string }).key;
  });
  afterAll(async () => {
    await gw.stop();
    await upstream.close();
    await receiver.close();
  });

  it('moves through the upstream states, fails what it fails, proxies content with the upstream key, delivers one signed webhook per job', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const prompts = ['a red kite', 'please fail this', 'a blue boat'];
    const created: OpenAI.Videos.Video[] = [];
    for (const prompt of prompts) {
      created.push(await client.videos.create({ model: 'vid/sora-2', prompt, seconds: '8', size: '1280x720', callback_url: receiver.url } as OpenAI.Videos.VideoCreateParams));
    }
    const ends = await until('every job to end', async () => {
      const views = await Promise.all(created.map((c) => client.videos.retrieve(c.id)));
      return views.every((v) => (v.status === 'completed' || v.status === 'failed') && 'usage' in v) ? views : undefined;
    });
    expect(ends.map((v) => v.status)).toEqual(['completed', 'failed', 'completed']);
    expect(ends[1].error).toEqual({ code: 'moderation_blocked', message: 'The prompt was blocked.' });
    expect(ends[0]).toMatchObject({ seconds: '8', size: '1280x720', progress: 100, model: 'sora-2' });
    // Upstream saw multipart creates and polls, all with its own key; our clients never see that key.
    expect(upstream.requests.every((r) => r.authorized)).toBe(true);
    expect([...upstream.videos.values()].map((v) => v.seconds)).toEqual(['8', '8', '8']);
    const bytes = Buffer.from(await (await client.videos.downloadContent(created[0].id)).arrayBuffer());
    expect(bytes).toEqual(FAKE_MP4);
    const thumb = Buffer.from(await (await client.videos.downloadContent(created[2].id, { variant: 'thumbnail' })).arrayBuffer());
    expect(thumb).toEqual(FAKE_JPEG);
    // A second download comes from the gateway's cache: no new upstream content request.
    const contentCalls = () => upstream.requests.filter((r) => r.path.includes('/content')).length;
    const before = contentCalls();
    await (await client.videos.downloadContent(created[0].id)).arrayBuffer();
    expect(contentCalls()).toBe(before);
    // Billing: 8 s at $0.10/s for each completed job, nothing for the failed one.
    expect((ends[0] as unknown as { usage: { cost: number } }).usage.cost).toBe(800);
    expect((ends[1] as unknown as { usage?: { cost: number } }).usage).toEqual({ cost: 0 });
    // Webhooks: one accepted delivery per job, signed with the account's secret.
    const secret = ((await (await fetch(`${gw.url}/v1/webhooks/secret`, { headers: { authorization: `Bearer ${key}` } })).json()) as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);
    await until('three accepted deliveries', async () => (receiver.deliveries.filter((d) => d.answered === 204).length >= 3 ? true : undefined));
    const accepted = receiver.deliveries.filter((d) => d.answered === 204);
    const ids = accepted.map((d) => String(d.headers['webhook-id']));
    expect(new Set(ids).size).toBe(3);
    for (const d of receiver.deliveries) expect(verify(secret, d.headers, d.body)).toBe(true);
    expect(verify(secret, { ...accepted[0].headers, 'webhook-id': 'msg_other' }, accepted[0].body)).toBe(false);
    const events = accepted.map((d) => JSON.parse(d.body) as { type: string; data: { id: string; status: string } });
    expect(events.map((e) => e.type).sort()).toEqual(['video.completed', 'video.completed', 'video.failed']);
    expect(new Set(events.map((e) => e.data.id))).toEqual(new Set(created.map((c) => c.id)));
    // The refused first delivery was retried under the same webhook-id.
    expect(receiver.deliveries[0].answered).toBe(500);
    expect(ids).toContain(String(receiver.deliveries[0].headers['webhook-id']));
  });
});
