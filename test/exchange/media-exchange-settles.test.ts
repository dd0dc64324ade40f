/**
 * A media call whose provider answered with something the gateway cannot read (a third-party
 * plugin breaking its contract) ends its credit hold: the client gets 502 provider_error in the
 * spec's envelope, and nothing stays reserved on the account (credits, the key's concurrency slot).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AccountGuards } from '../../src/accounts/index.ts';
import { InProcessCredits } from '../../src/credits/index.ts';
import { encodeWav } from '../../plugins/mock/wav.ts';
import { get, makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const CONFIG = {
  // One slot per key: a call that kept its slot would make the next one a 429.
  limits: { concurrency: { tiers: { pro: 1 } } },
  providers: {
    odd: {
      plugin: './test/fixtures/plugins/malformed-media-plugin.ts',
      models: [
        { id: 'draw', type: 'image_generation', pricing: { image: 0.04 } },
        { id: 'blank', type: 'image_generation', pricing: { image: 0.04 } },
        { id: 'none', type: 'image_generation', pricing: { image: 0.04, input: 100 } },
        { id: 'holey', type: 'image_generation', pricing: { image: 0.04 } },
        { id: 'untyped', type: 'image_generation', pricing: { image: 0.04 } },
        { id: 'raw', type: 'image_generation', pricing: { image: 0.04 } },
        { id: 'say', type: 'audio', capabilities: ['speech'], pricing: { speechChars: 15 } },
        { id: 'mimic', type: 'audio', capabilities: ['speech'], pricing: { speechChars: 15 } },
        { id: 'bare', type: 'audio', capabilities: ['speech'], pricing: { speechChars: 15 } },
        { id: 'hear', type: 'audio', capabilities: ['transcription'], pricing: { audioMinute: 0.006 } },
        { id: 'mute', type: 'audio', capabilities: ['transcription'], pricing: { audioMinute: 0.006 } },
        { id: 'segs', type: 'audio', capabilities: ['transcription'], pricing: { audioMinute: 0.006 } },
        { id: 'backwards', type: 'audio', capabilities: ['transcription'], pricing: { audioMinute: 0.006, input: 1 } },
        { id: 'vague', type: 'audio', capabilities: ['transcription'], pricing: { audioMinute: 0.006, input: 1 } },
        { id: 'vec', type: 'embedding', pricing: { input: 100 } },
        { id: 'hollow', type: 'embedding', pricing: { input: 100 } },
        { id: 'sparse', type: 'embedding', pricing: { input: 100 } },
        { id: 'judge', type: 'moderation', pricing: { input: 100 } },
        { id: 'blind', type: 'moderation', pricing: { input: 100 } },
        { id: 'terse', type: 'moderation', pricing: { input: 100 } },
        { id: 'loose', type: 'moderation', pricing: { input: 100 } },
      ],
    },
  },
};

function reserved(t: TestGateway, accountId: string): number {
  const guards = t.gateway.deps.guards;
  if (!(guards instanceof AccountGuards) || !(guards.credits instanceof InProcessCredits)) throw new Error('the in-process credit engine expected (file store)');
  return guards.credits.book.reserved(accountId);
}

/** A transcription of three seconds of silence by `model`, with the form's other fields. */
function transcribe(t: TestGateway, key: string, model: string, fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.append('model', model);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new File([new Uint8Array(encodeWav(Buffer.alloc(8000 * 2 * 3), 8000))], 'a.wav', { type: 'audio/wav' }));
  return t.fetch('/v1/audio/transcriptions', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
}

async function expectProviderError(res: Response): Promise<void> {
  expect(res.status).toBe(502);
  const body = (await res.json()) as { error: { code: string; type: string; message: string } };
  expect(body.error.code).toBe('provider_error');
  expect(body.error.message).toMatch(/odd/);
}

/**
 * What the account still holds and how many requests the request log still waits for (a record
 * is emitted once its call settled), once the settlement had a moment.
 */
async function leftOver(t: TestGateway, accountId: string): Promise<{ reserved: number; active: number }> {
  const now = () => ({ reserved: reserved(t, accountId), active: t.gateway.deps.observer.activeRequests });
  for (let i = 0; i < 50 && (now().reserved > 0 || now().active > 0); i++) await new Promise((r) => setTimeout(r, 10));
  return now();
}

/**
 * Sends what `send` sends twice on a fresh gateway (one slot per key: a kept slot makes the second
 * a 429), each answer a refusal `expect` accepts; then nothing is left held, and nothing charged.
 */
async function refusedUncharged(send: (t: TestGateway, key: string) => Promise<Response>, expectRefusal = expectProviderError): Promise<void> {
  gw = await makeGateway(CONFIG);
  const { key, accountId } = await gw.account({ credits: 1000 });
  for (let i = 0; i < 2; i++) await expectRefusal(await send(gw, key));
  expect(await leftOver(gw, accountId)).toEqual({ reserved: 0, active: 0 });
  expect(gw.gateway.deps.store.cache.account(accountId)?.credits).toBe(1000);
}

/** Google's 502 (`:predict`, `…:embedContent`): the gateway's code in the ErrorInfo detail, the provider named. */
async function expectGoogleProviderError(res: Response): Promise<void> {
  expect(res.status).toBe(502);
  const { error } = (await res.json()) as { error: { code: number; message: string; details: Array<{ reason?: string }> } };
  expect(error.code).toBe(502);
  expect(error.details[0].reason).toBe('provider_error');
  expect(error.message).toMatch(/odd/);
}

describe('a media answer the gateway cannot read', () => {
  it('images: 502 provider_error, and the hold taken for the images is given back', () =>
    refusedUncharged((t, key) => t.fetch('/v1/images/generations', post({ model: 'odd/draw', prompt: 'a cat', n: 2 }, key))));

  it('images: an image without its bytes is the same: 502 provider_error, nothing charged', () =>
    refusedUncharged((t, key) => t.fetch('/v1/images/generations', post({ model: 'odd/blank', prompt: 'a cat' }, key))));

  // none answered 200 {"data": []} and charged the prompt; untyped 200, its temporary URL served as `content-type: undefined`;
  // holey and raw 500 after the charge (storing the images failed).
  it.each([
    ['no image', 'none'],
    ['a list with a hole', 'holey'],
    ['an image without its content type', 'untyped'],
    ['bytes that are no Uint8Array', 'raw'],
  ])('images: a result with %s is 502 provider_error, nothing charged', (_name, model) =>
    refusedUncharged((t, key) => t.fetch('/v1/images/generations', post({ model: `odd/${model}`, prompt: 'a cat' }, key))));

  it("images through Vertex AI's Imagen :predict: 502 in Google's shape, nothing charged", () =>
    refusedUncharged(
      (t, key) => t.fetch('/v1beta1/projects/p/locations/us-central1/publishers/odd/models/holey:predict', { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': key }, body: JSON.stringify({ instances: [{ prompt: 'a cat' }] }) }),
      expectGoogleProviderError,
    ));

  it('speech: a result without audio is 502 provider_error, nothing charged', () =>
    refusedUncharged((t, key) => t.fetch('/v1/audio/speech', post({ model: 'odd/say', input: 'hello there', voice: 'alloy' }, key))));

  // Both were 200 and charged (the ArrayBuffer against SpeechResult's Uint8Array); now refused before the charge as images are.
  it.each([
    ['an object posing as bytes', 'mimic'],
    ['bytes that are no Uint8Array', 'bare'],
  ])('speech: a result with %s is 502 provider_error, nothing charged', (_name, model) =>
    refusedUncharged((t, key) => t.fetch('/v1/audio/speech', post({ model: `odd/${model}`, input: 'hello there', voice: 'alloy' }, key))));

  it('transcriptions: 502 provider_error, and the hold for the audio is given back', () => refusedUncharged((t, key) => transcribe(t, key, 'odd/hear')));

  it('embeddings: 502 provider_error, and the request is recorded', () => refusedUncharged((t, key) => t.fetch('/v1/embeddings', post({ model: 'odd/vec', input: 'hello there' }, key))));

  // It answered 200 {} before (json; the text format and the stream alike).
  it.each<Record<string, string>>([{}, { response_format: 'text' }, { stream: 'true' }])('transcriptions: a result without its text is 502 provider_error, nothing charged (%j)', (fields) =>
    refusedUncharged((t, key) => transcribe(t, key, 'odd/mute', fields)));

  it('transcriptions: segments without the text serve what is made of segments (verbose_json, srt), not json', async () => {
    gw = await makeGateway(CONFIG);
    const { key, accountId } = await gw.account({ credits: 1000 });
    const verbose = await transcribe(gw, key, 'odd/segs', { response_format: 'verbose_json' });
    expect(verbose.status).toBe(200);
    expect(await verbose.json()).toMatchObject({ text: 'hello there', segments: [{ text: ' hello' }, { text: ' there' }] });
    const srt = await transcribe(gw, key, 'odd/segs', { response_format: 'srt' });
    expect(srt.status).toBe(200);
    expect(await srt.text()).toContain('hello');
    await expectProviderError(await transcribe(gw, key, 'odd/segs'));
    expect(await leftOver(gw, accountId)).toEqual({ reserved: 0, active: 0 });
    // The two answers were charged (two seconds of audio each), the refused one not.
    expect(gw.gateway.deps.store.cache.account(accountId)?.credits).toBeCloseTo(1000 - 2 * (2 / 60) * 0.006 * 1000, 6);
  });

  // A negative duration would pay the account; a duration or a count that is no number would price the call at NaN.
  it.each(['backwards', 'vague'])('transcriptions: what %s says it used is no count: 502 provider_error, nothing charged', (model) =>
    refusedUncharged((t, key) => transcribe(t, key, `odd/${model}`)));

  // It answered 200 {"model": …} before.
  it('embeddings: an answer without data is 502 provider_error, nothing charged', () =>
    refusedUncharged((t, key) => t.fetch('/v1/embeddings', post({ model: 'odd/hollow', input: 'hello there' }, key))));

  it('embeddings: an answer without a vector for every input is 502 provider_error, nothing charged', () =>
    refusedUncharged((t, key) => t.fetch('/v1/embeddings', post({ model: 'odd/sparse', input: ['first', 'second'] }, key))));

  // Gemini's embedContent and batchEmbedContents and Vertex AI's :predict run the same call: the same refusal, in Google's shape.
  it.each([
    ['embedContent', '/v1beta/models/odd/hollow:embedContent', { content: { parts: [{ text: 'hello there' }] } }],
    ['batchEmbedContents', '/v1beta/models/odd/sparse:batchEmbedContents', { requests: [{ content: { parts: [{ text: 'first' }] } }, { content: { parts: [{ text: 'second' }] } }] }],
    ["Vertex AI's :predict", '/v1beta1/projects/p/locations/us-central1/publishers/odd/models/hollow:predict', { instances: [{ content: 'hello there' }] }],
  ])("embeddings through %s: 502 in Google's shape, nothing charged", (_name, path, body) =>
    refusedUncharged((t, key) => t.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': key }, body: JSON.stringify(body) }), expectGoogleProviderError));

  // It answered 200 {"model": …} before, and charged it.
  it.each([
    ['without results', 'blind', 'hello there'],
    ['without a result for every input', 'terse', ['first', 'second']],
    ['whose result has no flagged verdict', 'loose', 'hello there'],
  ])('moderations: an answer %s is 502 provider_error, nothing charged', (_name, model, input) =>
    refusedUncharged((t, key) => t.fetch('/v1/moderations', post({ model: `odd/${model}`, input }, key))));

  it('moderations: one result per text of a list, one for a list of parts, are served and charged', async () => {
    gw = await makeGateway(CONFIG);
    const { key, accountId } = await gw.account({ credits: 1000 });
    const texts = await gw.fetch('/v1/moderations', post({ model: 'odd/judge', input: ['first', 'second'] }, key));
    expect(texts.status).toBe(200);
    expect(await texts.json()).toMatchObject({ model: 'odd/judge', results: [{ flagged: false }, { flagged: false }] });
    const parts = [{ type: 'text', text: 'a picture' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }];
    const mixed = await gw.fetch('/v1/moderations', post({ model: 'odd/judge', input: parts }, key));
    expect(mixed.status).toBe(200);
    expect(((await mixed.json()) as { results: unknown[] }).results).toHaveLength(1);
    expect(await leftOver(gw, accountId)).toEqual({ reserved: 0, active: 0 });
    expect(gw.gateway.deps.store.cache.account(accountId)?.credits).toBeLessThan(1000);
  });

  // A batch line runs the same moderations call: the unreadable answer fails its line alone, uncharged.
  it('moderations in a batch: the line whose answer has no results fails with provider_error, only the other is charged', async () => {
    gw = await makeGateway(CONFIG);
    const { key, accountId } = await gw.account({ credits: 1000 });
    const lines = ['judge', 'blind'].map((model) => JSON.stringify({ custom_id: model, method: 'POST', url: '/v1/moderations', body: { model: `odd/${model}`, input: 'hello there' } }));
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([lines.join('\n')]), 'in.jsonl');
    const file = (await (await gw.fetch('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json()) as { id: string };
    const created = (await (await gw.fetch('/v1/batches', post({ input_file_id: file.id, endpoint: '/v1/moderations', completion_window: '24h' }, key))).json()) as { id: string };
    let batch = { status: '', request_counts: {}, error_file_id: '' };
    for (let i = 0; i < 200 && batch.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      batch = (await (await gw.fetch(`/v1/batches/${created.id}`, get(key))).json()) as typeof batch;
    }
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 1, failed: 1 } });
    const errors = (await (await gw.fetch(`/v1/files/${batch.error_file_id}/content`, get(key))).text()).trim().split('\n').map((line) => JSON.parse(line) as { custom_id: string; error: { code: string } });
    expect(errors.map((line) => [line.custom_id, line.error.code])).toEqual([['blind', 'provider_error']]);
    expect(await leftOver(gw, accountId)).toEqual({ reserved: 0, active: 0 });
    // The judge line alone: 'hello there' is 3 estimated tokens, 0.3 credits on the route, at the batch's 0.5.
    expect(gw.gateway.deps.store.cache.account(accountId)?.credits).toBeCloseTo(1000 - 0.3 * 0.5, 6);
  });
});
