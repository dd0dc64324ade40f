// The Bedrock fake refuses what Bedrock refuses: it is only as good as these checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigner } from '../../../plugins/bedrock/sign-request.ts';
import { startFakeBedrock, type FakeBedrock } from '../../helpers/fake-bedrock.ts';

const KEYS = { accessKeyId: 'ASIATESTKEY', secretAccessKey: 'test/secret', sessionToken: 'session-token' };
const BODY = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });

describe('the Bedrock fake', () => {
  let fake: FakeBedrock;
  let skewed: FakeBedrock;

  beforeAll(async () => {
    fake = await startFakeBedrock({ region: 'us-east-1', credentials: [KEYS], apiKeys: ['ABSKgood'] });
    skewed = await startFakeBedrock({ region: 'us-east-1', credentials: [KEYS], clockSkewMs: 6 * 60_000 });
  });
  afterAll(async () => {
    await fake?.close();
    await skewed?.close();
  });

  async function call(base: string, options: { region?: string; credentials?: typeof KEYS; body?: string; sent?: string; bearer?: string } = {}) {
    const url = new URL(`${base}/model/meta.llama3-3-70b-instruct-v1%3A0/converse`);
    const body = options.body ?? BODY;
    const headers = options.bearer
      ? { 'content-type': 'application/json', authorization: `Bearer ${options.bearer}` }
      : await createSigner(options.credentials ?? KEYS, options.region ?? 'us-east-1')({ url, headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
    const res = await fetch(url, { method: 'POST', headers, body: options.sent ?? body });
    return { status: res.status, type: res.headers.get('x-amzn-errortype')?.split(':')[0], json: (await res.json()) as Record<string, any> };
  }

  it('answers a correctly signed call, and one with a Bedrock API key', async () => {
    expect((await call(fake.url)).json.output.message.content[0].text).toBe('Converse heard: hi');
    expect((await call(fake.url, { bearer: 'ABSKgood' })).status).toBe(200);
  });

  it('refuses a wrong region, a tampered body, a stale date, a missing session token and a bad API key', async () => {
    expect(await call(fake.url, { region: 'eu-west-1' })).toMatchObject({ status: 403, type: 'InvalidSignatureException', json: { message: expect.stringMatching(/scoped to a valid region/) } });
    expect(await call(fake.url, { sent: BODY.replace('hi', 'ho') })).toMatchObject({ status: 403, type: 'InvalidSignatureException', json: { message: expect.stringMatching(/does not match/) } });
    expect(await call(skewed.url)).toMatchObject({ status: 403, type: 'InvalidSignatureException', json: { message: expect.stringMatching(/Signature expired/) } });
    expect(await call(fake.url, { credentials: { ...KEYS, sessionToken: undefined as unknown as string } })).toMatchObject({ status: 403, type: 'UnrecognizedClientException' });
    expect(await call(fake.url, { credentials: { ...KEYS, secretAccessKey: 'wrong' } })).toMatchObject({ status: 403, type: 'InvalidSignatureException' });
    expect(await call(fake.url, { bearer: 'ABSKbad' })).toMatchObject({ status: 403, type: 'UnrecognizedClientException' });
  });

  it('refuses unknown Converse fields and broken conversations with a ValidationException', async () => {
    expect(await call(fake.url, { body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'x' }] }], maxTokens: 5 }) })).toMatchObject({ status: 400, type: 'ValidationException', json: { message: 'Unknown field: maxTokens' } });
    const orphan = { messages: [{ role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'r' }] } }] }], toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: {} } } }] } };
    expect(await call(fake.url, { body: JSON.stringify(orphan) })).toMatchObject({ status: 400, json: { message: expect.stringMatching(/matches no toolUse/) } });
  });

  it('throttles on demand', async () => {
    fake.faults.throttle = 1;
    expect(await call(fake.url)).toMatchObject({ status: 429, type: 'ThrottlingException' });
    expect((await call(fake.url)).status).toBe(200);
  });
});
