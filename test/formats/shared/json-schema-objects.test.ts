import { describe, expect, it } from 'vitest';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { meetsOpenAIStrict, openAIToolStrict } from '../../../src/formats/shared/index.ts';

const closed = { type: 'object', properties: { city: { type: 'string' }, wind: { type: 'object', properties: { speed: { type: 'number' } }, required: ['speed'], additionalProperties: false } }, required: ['city', 'wind'], additionalProperties: false };

describe("OpenAI's strict mode for schemas from other formats", () => {
  it('takes a schema whose every object is closed with every property required', () => {
    expect(meetsOpenAIStrict(closed)).toBe(true);
    expect(meetsOpenAIStrict({ ...closed, required: ['city'] })).toBe(false);
    expect(meetsOpenAIStrict({ ...closed, additionalProperties: undefined })).toBe(false);
    expect(meetsOpenAIStrict({ ...closed, properties: { ...closed.properties, days: { type: 'array', items: { type: 'object', properties: { d: { type: 'string' } } } } }, required: ['city', 'wind', 'days'] })).toBe(false);
    expect(meetsOpenAIStrict({ ...closed, $defs: { open: { type: 'object', properties: { a: { type: 'string' } }, required: [], additionalProperties: false } } })).toBe(false);
  });

  it('sends an Anthropic strict tool with an optional property non-strict, and a fitting one strict', () => {
    expect(openAIToolStrict(true, { ...closed, required: ['city'] })).toBe(false);
    expect(openAIToolStrict(true, closed)).toBe(true);
    expect(openAIToolStrict(undefined, { type: 'object' })).toBeUndefined();
    expect(openAIToolStrict(false, closed)).toBe(false);
    const request = chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    request.tools = [{ name: 'lookup', parameters: { ...closed, required: ['city'] }, strict: true }];
    const body = chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4.1' });
    expect((body.tools as Array<{ function: { strict?: boolean } }>)[0].function.strict).toBe(false);
  });
});
