import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/index.ts';
import { fitImageOptions, imageOptionProblems } from '../../src/media/check-image-options.ts';
import { decodeImageRequest } from '../../src/media/decode-image-request.ts';
import type { ModelSpec } from '../../src/plugin-kit/types.ts';
import type { CatalogModel } from '../../src/providers/types.ts';

const DALL_E_3: ModelSpec = { id: 'dall-e-3', type: 'image_generation', sizes: ['1024x1024', '1792x1024'], qualities: ['standard', 'hd'], styles: ['vivid', 'natural'], n: { min: 1, max: 1 } };
const model = (spec: ModelSpec, id = `p/${spec.id}`) => ({ id, spec }) as unknown as CatalogModel;
const sentKeys = (body: Record<string, unknown>) => new Set(Object.keys(body));

describe('per-model image options', () => {
  it('names each field outside the declared values, with the allowed ones', () => {
    const body = { model: 'dall-e-3', prompt: 'p', size: '512x512', quality: 'ultra', style: 'odd', n: 2 };
    expect(imageOptionProblems(DALL_E_3, decodeImageRequest(body), sentKeys(body))).toEqual({
      size: 'must be one of 1024x1024, 1792x1024 for dall-e-3',
      quality: 'must be one of standard, hd for dall-e-3',
      style: 'must be one of vivid, natural for dall-e-3',
      n: 'must be 1 for dall-e-3',
    });
  });

  it('lets undeclared options and the default size through', () => {
    const body = { model: 'x', prompt: 'p', quality: 'anything', style: 'whatever', n: 4 };
    expect(imageOptionProblems({ id: 'x' }, decodeImageRequest(body), sentKeys(body))).toEqual({});
    const noSize = { model: 'x', prompt: 'p' };
    expect(imageOptionProblems({ id: 'x', sizes: ['256x256'] }, decodeImageRequest(noSize), sentKeys(noSize))).toEqual({});
  });

  it('keeps the candidates that fit, else a 422 with the first one’s allowed values', () => {
    const body = { model: 'm', prompt: 'p', size: '256x256' };
    const small = model({ id: 'm', sizes: ['256x256'] }, 'b/m');
    expect(fitImageOptions([model({ id: 'm', sizes: ['1024x1024'] }, 'a/m'), small], decodeImageRequest(body), sentKeys(body))).toEqual([small]);
    let error: unknown;
    try {
      fitImageOptions([model(DALL_E_3)], decodeImageRequest(body), sentKeys(body));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(422);
    expect((error as GatewayError).details).toMatchObject({ fields: { size: expect.stringContaining('1024x1024, 1792x1024') }, allowed: { sizes: ['1024x1024', '1792x1024'], n: { min: 1, max: 1 } } });
  });
});
