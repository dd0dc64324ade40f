/**
 * Images asked of a converted route (Gemini's `responseModalities`, Chat's `modalities`): the
 * upstream format asks for them, or the request is Google's 400 before anything goes up.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest, WireFormat } from '../../src/ir/index.ts';
import { checkConvertible } from '../../src/pipeline/index.ts';
import type { CatalogModel, Provider } from '../../src/providers/index.ts';
import type { ModelSpec } from '../../src/plugin-kit/index.ts';

function modelOn(format: WireFormat, spec: Partial<ModelSpec> = {}): CatalogModel {
  const provider = { id: 'up', formats: [format] } as unknown as Provider;
  return { id: `up/${format}-model`, provider, upstreamId: `${format}-model`, spec: { id: `${format}-model`, ...spec }, formats: [format] };
}

const request = (outputModalities?: Array<'text' | 'image'>): ChatRequest =>
  ({ model: 'x', messages: [{ role: 'user', content: [{ type: 'text', text: 'Draw a cat' }] }], stream: false, outputModalities }) as ChatRequest;

const refusal = (model: CatalogModel) => {
  try {
    checkConvertible(request(['text', 'image']), model);
    return undefined;
  } catch (error) {
    const { code, status, message } = error as { code: string; status: number; message: string };
    return { code, status, message };
  }
};

describe('images asked of a converted route', () => {
  it('Gemini and Responses upstreams are asked (their upstream judges the model)', () => {
    expect(refusal(modelOn('gemini'))).toBeUndefined();
    expect(refusal(modelOn('responses'))).toBeUndefined();
  });

  it('a Chat upstream only for a model the catalog says makes images', () => {
    expect(refusal(modelOn('chat', { modalities: { input: ['text'], output: ['text', 'image'] } }))).toBeUndefined();
    expect(refusal(modelOn('chat'))).toEqual({
      code: 'bad_request',
      status: 400,
      message: "Model does not support the requested response modalities: image (model 'up/chat-model' is served by an upstream that answers in text only).",
    });
  });

  it('a Messages upstream never (Anthropic has no image output), whatever the catalog says', () => {
    expect(refusal(modelOn('messages'))?.status).toBe(400);
    expect(refusal(modelOn('messages', { modalities: { input: ['text'], output: ['text', 'image'] } }))?.code).toBe('bad_request');
  });

  it('a request that asks for text only, or for nothing, passes everywhere', () => {
    for (const format of ['chat', 'messages'] as const) {
      expect(() => checkConvertible(request(), modelOn(format))).not.toThrow();
      expect(() => checkConvertible(request(['text']), modelOn(format))).not.toThrow();
    }
  });
});
