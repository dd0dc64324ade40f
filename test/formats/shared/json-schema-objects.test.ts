import { describe, expect, it } from 'vitest';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { meetsOpenAIStrict, openAIStrict } from '../../../src/formats/shared/index.ts';

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
    expect(openAIStrict(true, { ...closed, required: ['city'] })).toBe(false);
    expect(openAIStrict(true, closed)).toBe(true);
    expect(openAIStrict(undefined, { type: 'object' })).toBeUndefined();
    expect(openAIStrict(false, closed)).toBe(false);
    const request = chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    request.tools = [{ name: 'lookup', parameters: { ...closed, required: ['city'] }, strict: true }];
    const body = chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4.1' });
    expect((body.tools as Array<{ function: { strict?: boolean } }>)[0].function.strict).toBe(false);
  });

  it("asks an OpenAI upstream for a strict response format only where the schema fits (an Anthropic client's is constrained)", () => {
    const request = chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    request.responseFormat = { type: 'json_schema', schema: closed, strict: true };
    expect((chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4.1' }).response_format as { json_schema: { strict?: boolean } }).json_schema.strict).toBe(true);
    request.responseFormat = { type: 'json_schema', schema: { ...closed, required: ['city'] }, strict: true };
    expect((chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4.1' }).response_format as { json_schema: { strict?: boolean } }).json_schema.strict).toBe(false);
  });
});
