/**
 * A converted request fitted to its target (docs/formats.md, "Parameters fitted to the target
 * model"): what the target format lacks is read from its face (`fit`), not from its id, so a
 * format registered from outside the core is fitted by its own declaration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerFormat, unregisterFormat } from '../../src/formats/index.ts';
import type { ChatRequest, WireFormat } from '../../src/ir/index.ts';
import { fitToModel, JSON_OBJECT_INSTRUCTION } from '../../src/pipeline/fit-to-model.ts';
import type { CatalogModel, Provider } from '../../src/providers/index.ts';
import { toyFormat } from '../formats/toy/index.ts';

function modelFor(format: WireFormat): CatalogModel {
  const provider = { id: 'up', formats: [format] } as unknown as Provider;
  return { id: 'up/up-model', provider, upstreamId: 'up-model', spec: { id: 'up-model' }, formats: [format] };
}

const REQUEST: ChatRequest = {
  model: 'up/up-model',
  system: [{ type: 'text', text: 'be brief' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  stream: false,
  reasoning: { enabled: true, effort: 'max' },
  responseFormat: { type: 'json_object' },
};

describe('fitToModel reads what the target lacks from its face', () => {
  it.each(['chat', 'responses', 'gemini'])('%s (no max effort, a JSON mode): max → high, json_object kept', (target) => {
    const { request, adapted } = fitToModel(REQUEST, modelFor(target), target);
    expect(adapted).toEqual(['reasoning.effort=high']);
    expect(request.reasoning).toEqual({ enabled: true, effort: 'high' });
    expect(request.responseFormat).toEqual({ type: 'json_object' });
    expect(REQUEST.reasoning?.effort).toBe('max');
  });

  it('messages (fit: maxEffort, noJsonMode): max kept, json_object → a system instruction', () => {
    const { request, adapted } = fitToModel(REQUEST, modelFor('messages'), 'messages');
    expect(adapted).toEqual(['response_format=instruction']);
    expect(request.reasoning?.effort).toBe('max');
    expect(request.responseFormat).toBeUndefined();
    expect(request.system).toEqual([{ type: 'text', text: 'be brief' }, { type: 'text', text: JSON_OBJECT_INSTRUCTION }]);
  });

  describe('a format registered from outside the core', () => {
    const id = 'fit-toy';
    beforeAll(() => registerFormat({ ...toyFormat, id, routes: [], codec: { ...toyFormat.codec, format: id }, fit: { maxEffort: true, noJsonMode: true } }));
    afterAll(() => unregisterFormat(id));

    it('is fitted by its own declaration', () => {
      const { request, adapted } = fitToModel(REQUEST, modelFor(id), id);
      expect(adapted).toEqual(['response_format=instruction']);
      expect(request.reasoning?.effort).toBe('max');
    });
  });
});

describe('fitToModel: reasoning removed for a model known not to reason', () => {
  const ask: ChatRequest = { ...REQUEST, reasoning: { enabled: true, budgetTokens: 2048 }, responseFormat: undefined };
  const model = (upstreamId: string, capabilities?: CatalogModel['spec']['capabilities']): CatalogModel => ({ ...modelFor('chat'), upstreamId, spec: { id: upstreamId, capabilities } });

  it("by an id nobody described only for OpenAI's gpt-5-chat, which refuses reasoning_effort", () => {
    const fitted = fitToModel(ask, model('gpt-5-chat-latest'), 'chat');
    expect(fitted.adapted).toEqual(['reasoning=removed']);
    expect('reasoning' in fitted.request).toBe(false);
    expect(fitToModel(ask, model('gpt-5-chat-2025-08-07'), 'chat').adapted).toEqual(['reasoning=removed']);
    for (const id of ['gpt-5', 'gpt-5.1-chat-latest', 'my-model']) expect(fitToModel(ask, model(id), 'chat').adapted, id).toEqual([]);
  });

  it("the catalog's word wins over the id", () => {
    expect(fitToModel(ask, model('gpt-5-chat-latest', ['streaming', 'thinking']), 'chat').adapted).toEqual([]);
    expect(fitToModel(ask, model('gpt-5', ['streaming']), 'chat').adapted).toEqual(['reasoning=removed']);
  });
});

describe('fitToModel: what an OpenAI reasoning model refuses', () => {
  const gpt5 = (format: WireFormat): CatalogModel => ({ ...modelFor(format), upstreamId: 'gpt-5', spec: { id: 'gpt-5' } });
  const ask: ChatRequest = { ...REQUEST, reasoning: undefined, responseFormat: undefined, temperature: 0.2, stop: ['\nObservation:'] };

  it.each(['chat', 'responses'])('%s: sampling left out, stop sequences emulated (cut by the gateway), said', (target) => {
    const { request, adapted, stop } = fitToModel(ask, gpt5(target), target);
    expect(adapted).toEqual(['temperature=removed', 'stop=emulated']);
    expect([request.temperature, request.stop]).toEqual([undefined, undefined]);
    expect(stop).toEqual(['\nObservation:']);
  });

  it("a deployment's name is not the model: gpt-5 behind `my-gpt5-prod` (its id, or the entry's baseModel) is fitted as gpt-5", () => {
    // Before: read by the upstream id, so Azure got stop and temperature and refused them.
    const deployed: CatalogModel = { ...gpt5('chat'), upstreamId: 'my-gpt5-prod' };
    const named: CatalogModel = { ...modelFor('chat'), upstreamId: 'my-gpt5-prod', spec: { id: 'prod-chat' }, baseModel: 'gpt-5' };
    for (const model of [deployed, named]) expect(fitToModel(ask, model, 'chat').adapted).toEqual(['temperature=removed', 'stop=emulated']);
    // A model OpenAI does not make keeps them whatever its deployment is called.
    expect(fitToModel(ask, { ...modelFor('chat'), upstreamId: 'gpt-5-looking-name', spec: { id: 'Llama-3.3-70B-Instruct' } }, 'chat').adapted).toEqual([]);
  });

  it('an empty stop list is nothing to say', () => {
    expect(fitToModel({ ...ask, temperature: undefined, stop: [] }, gpt5('chat'), 'chat').adapted).toEqual([]);
  });

  it('a model that takes them keeps them', () => {
    const { request, adapted } = fitToModel(ask, modelFor('chat'), 'chat');
    expect(adapted).toEqual([]);
    expect(request.stop).toEqual(['\nObservation:']);
  });

  // Gemini is asked (responseLogprobs) since wave 27: a model that refuses is made a second call without (test/formats/logprobs.test.ts).
  it.each(['messages'])('%s is not asked for token log probabilities (fit.noLogprobs): left out, said', (target) => {
    // Before: dropped by the encoder without a word, choices[0].logprobs null.
    const { request, adapted } = fitToModel({ ...ask, temperature: undefined, stop: undefined, logprobs: true, topLogprobs: 2 }, modelFor(target), target);
    expect(adapted).toEqual(['logprobs=removed']);
    expect([request.logprobs, request.topLogprobs]).toEqual([undefined, undefined]);
  });

  it('gemini keeps them: asked of the upstream', () => {
    expect(fitToModel({ ...ask, temperature: undefined, stop: undefined, logprobs: true, topLogprobs: 2 }, modelFor('gemini'), 'gemini').adapted).toEqual([]);
  });

  it('Responses has no stop sequences for any model (fit.noStop): left out of the request, emulated, said', () => {
    // Before: dropped by the encoder without a word, the answer running past the client's stop.
    const { request, adapted, stop } = fitToModel(ask, modelFor('responses'), 'responses');
    expect(adapted).toEqual(['stop=emulated']);
    expect(request.stop).toBeUndefined();
    expect(stop).toEqual(['\nObservation:']);
    // Only empty stop strings: nothing to emulate.
    expect(fitToModel({ ...ask, stop: [''] }, modelFor('responses'), 'responses')).toMatchObject({ adapted: ['stop=removed'] });
    // Each emulated sequence costs work per character of the answer: at most 64 (a 422 naming the field).
    expect(() => fitToModel({ ...ask, stop: Array.from({ length: 65 }, (_, i) => `stop${i}`) }, modelFor('responses'), 'responses')).toThrow(expect.objectContaining({ code: 'validation_error', details: { fields: { stop: expect.stringContaining('at most 64') } } }));
    // A sequence's matcher holds a table as long as it: each at most 10,000 characters (16 of 1,000,000 took +277 MB and 0.9 s for a five-character answer).
    expect(() => fitToModel({ ...ask, stop: ['ok', 'x'.repeat(10_001)] }, modelFor('responses'), 'responses')).toThrow(
      expect.objectContaining({ code: 'validation_error', details: { fields: { 'stop[1]': expect.stringContaining('at most 10000 characters') } } }),
    );
    expect(fitToModel({ ...ask, stop: ['x'.repeat(10_000)] }, modelFor('responses'), 'responses').stop).toEqual(['x'.repeat(10_000)]);
    expect(request.temperature).toBe(0.2);
  });
});
