/**
 * Imagen's `:predict` (the Gemini face's images) refuses with the fields the client sent
 * (`parameters.sampleCount`, `parameters.aspectRatio`), in Google's error shape: never the
 * OpenAI fields the gateway turned them into (`n`, `size`), nor a value read off a prototype.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGateway, type TestGateway } from '../../accounts/make-gateway.ts';

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await makeGateway({ providers: { mock: { plugin: 'mock' }, few: { plugin: 'mock', models: [{ id: 'pic', type: 'image_generation', n: { min: 1, max: 2 } }, { id: 'wide', type: 'image_generation', sizes: ['1024x1024', '1792x1024', '512x512'] }, { id: 'square', type: 'image_generation', sizes: ['512x512'] }] } } });
  ({ key } = await gw.account());
});
afterAll(() => gw.close());

interface GoogleError {
  error: { code: number; status: string; message: string; details?: Array<{ '@type': string; fieldViolations?: Array<{ field: string }> }> };
}

async function predict(model: string, parameters: Record<string, unknown>): Promise<{ status: number; body: GoogleError }> {
  const res = await gw.fetch(`/v1beta/models/${model}:predict`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body: JSON.stringify({ instances: [{ prompt: 'a red cube' }], parameters }),
  });
  return { status: res.status, body: (await res.json()) as GoogleError };
}

/** The fields a refusal names: its field violations, else what its message quotes. */
const named = (body: GoogleError) => body.error.details?.flatMap((detail) => detail.fieldViolations?.map((violation) => violation.field) ?? []) ?? [];

describe("Imagen's :predict names Google's fields", () => {
  it.each([
    [{ sampleCount: 2.5 }, 'parameters.sampleCount'],
    [{ sampleCount: 0 }, 'parameters.sampleCount'],
    [{ sampleCount: '2' }, 'parameters.sampleCount'],
    [{ aspectRatio: 'toString' }, 'parameters.aspectRatio'],
    [{ aspectRatio: 'constructor' }, 'parameters.aspectRatio'],
    [{ aspectRatio: '__proto__' }, 'parameters.aspectRatio'],
    [{ aspectRatio: '5:4' }, 'parameters.aspectRatio'],
    [{ negativePrompt: 7 }, 'parameters.negativePrompt'],
    [{ seed: 1.5 }, 'parameters.seed'],
  ])('%j → 400 INVALID_ARGUMENT naming %s', async (parameters, field) => {
    const { status, body } = await predict('mock/image', parameters);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.message).toContain(field);
    expect(body.error.message).not.toMatch(/'(n|size|negative_prompt)'/);
    const fields = named(body);
    if (fields.length > 0) expect(fields).toEqual([field]);
  });

  it("a count the model does not make names sampleCount too (the model's own range)", async () => {
    const { status, body } = await predict('few/pic', { sampleCount: 3 });
    expect(status).toBe(400);
    expect(body.error.message).toContain('parameters.sampleCount');
    expect(body.error.message).not.toContain("'n'");
  });

  it("a ratio the model does not make lists the ratios it does, as a Google client sends them (never OpenAI's sizes)", async () => {
    const { status, body } = await predict('few/wide', { aspectRatio: '9:16' });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    // 512x512 has no aspect ratio a client can send: not listed.
    expect(body.error.message).toBe("Invalid parameter 'parameters.aspectRatio': must be one of 1:1, 16:9 for wide");
    expect(body.error.details?.find((detail) => detail.fieldViolations)?.fieldViolations).toEqual([{ field: 'parameters.aspectRatio', description: 'must be one of 1:1, 16:9 for wide' }]);
    expect(JSON.stringify(body)).not.toMatch(/\d+x\d+/);
    expect((await predict('few/wide', { aspectRatio: '16:9' })).status).toBe(200);
  });

  it('a model none of whose sizes has a ratio says to leave aspectRatio out', async () => {
    const { status, body } = await predict('few/square', { aspectRatio: '1:1' });
    expect(status).toBe(400);
    expect(body.error.message).toBe("Invalid parameter 'parameters.aspectRatio': cannot be set for square (it makes none of the sizes this field names): leave it out");
    expect((await predict('few/square', {})).status).toBe(200);
  });

  it('a good request still makes its images', async () => {
    const res = await gw.fetch('/v1beta/models/mock/image:predict', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify({ instances: [{ prompt: 'a red cube' }], parameters: { sampleCount: 2, aspectRatio: '16:9' } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { predictions: unknown[] }).predictions).toHaveLength(2);
  });
});
