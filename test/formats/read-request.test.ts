/**
 * What a passthrough reads without decoding (issue 21 §7): each format's `passthrough.read`
 * gives the facts billing and routing need — the same model, stream flag, output cap, session
 * keys and vendor tools the decoder gives, and an input bound at least the IR's (so a request is
 * never held less than any upstream can bill) — and checks nothing else.
 */
import { describe, expect, it } from 'vitest';
import { getFormat, type RequestFacts } from '../../src/formats/index.ts';
import type { ChatRequest } from '../../src/ir/types.ts';
import { boundInputTokens, factsOf } from '../../src/pipeline/index.ts';
import { readJsonFixture } from './stream-helpers.ts';

type Json = Record<string, unknown>;

const IMAGE = 'data:image/png;base64,iVBORw0KGgo=';
const BODIES: Array<[string, Json]> = [
  ['chat', readJsonFixture('chat/request-tools.json') as Json],
  ['messages', readJsonFixture('messages/request-tools.json') as Json],
  ['responses', readJsonFixture('responses/request-all-items.json') as Json],
  ['chat', { model: 'm', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 }],
  ['chat', { model: 'm', stream: true, prompt_cache_key: 'k', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: IMAGE } }] }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, { role: 'tool', tool_call_id: 'call_1', content: 'ok' }], response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'number' } } } } } }],
  ['messages', { model: 'm', max_tokens: 9, system: 'sys', metadata: { user_id: 'u1' }, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'text', text: 'hi' }] }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] }], tools: [{ name: 'f', input_schema: { type: 'object' } }, { type: 'web_search_20250305', name: 'web_search' }] }],
  ['responses', { model: 'm', instructions: 'sys', input: 'hello', max_output_tokens: 50, tools: [{ type: 'web_search' }, { type: 'function', name: 'f', parameters: { type: 'object' } }], store: false }],
  ['chat', { model: 'm', messages: [{ role: 'user', content: 'news?' }], web_search_options: { search_context_size: 'low' } }],
  ['responses', { model: 'm', input: 'news?', tools: [{ type: 'web_search_preview' }, { type: 'file_search' }], tool_choice: { type: 'mcp' } }],
  ['chat', { model: 'm', messages: [{ role: 'user', content: 'draw a cat' }], modalities: ['image', 'text'] }],
  ['chat', { model: 'm', messages: [{ role: 'user', content: 'hi' }], modalities: ['text'] }],
];

/** The reader's facts are the decoder's, and its input bound is at least the IR's (and not far above). */
function expectFactsAsDecoded(facts: RequestFacts, request: ChatRequest, format: string): void {
  const decoded = factsOf(request, format);
  expect(facts.model).toBe(decoded.model);
  expect(facts.stream).toBe(decoded.stream);
  expect(facts.maxTokens).toBe(decoded.maxTokens);
  expect(facts.promptCacheKey).toBe(decoded.promptCacheKey);
  expect(facts.vendorTools).toEqual(decoded.vendorTools);
  expect(facts.imageOutput).toBe(decoded.imageOutput);
  expect(facts.inputBound).toBeGreaterThanOrEqual(boundInputTokens(request));
  expect(facts.inputBound).toBeLessThan(boundInputTokens(request) * 2 + 64);
  // An estimate (chars / 4, for an upstream that reports no usage) of the same text: within the bound.
  expect(facts.inputEstimate).toBeGreaterThan(0);
  expect(facts.inputEstimate).toBeLessThanOrEqual(facts.inputBound);
}

describe('passthrough.read: the facts a passthrough reads, without the IR', () => {
  it.each(BODIES.map(([format, body], i) => [`${format} #${i}`, format, body] as const))('%s: as the decoder says, bound >= the IR bound', (_name, format, body) => {
    const definition = getFormat(format);
    expectFactsAsDecoded(definition.passthrough.read!({ body, raw: JSON.stringify(body) }), definition.codec.decodeRequest(structuredClone(body)), format);
  });

  it('a short prompt is held exactly what its IR would be (docs/billing.md, the hold rule)', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
    expect(getFormat('chat').passthrough.read!({ body, raw: JSON.stringify(body) }).inputBound).toBe(29);
  });

  it("a Messages web search's max_uses is the hold's bound on searches, read alike without and with the IR; a Responses web search has none", () => {
    const messages = { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'news?' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] };
    const bounded = { format: 'messages', types: ['web_search_20250305'], webSearch: ['web_search_20250305'], maxUses: 3 };
    expect(getFormat('messages').passthrough.read!({ body: messages, raw: JSON.stringify(messages) }).vendorTools).toEqual(bounded);
    expect(factsOf(getFormat('messages').codec.decodeRequest(structuredClone(messages)), 'messages').vendorTools).toEqual(bounded);
    const responses = { model: 'm', input: 'news?', tools: [{ type: 'web_search' }] };
    expect(getFormat('responses').passthrough.read!({ body: responses, raw: JSON.stringify(responses) }).vendorTools).toEqual({ format: 'responses', types: ['web_search'], webSearch: ['web_search'] });
  });

  it("a Responses max_tool_calls is the hold's bound on its web search, read alike without and with the IR; ignored without a search or when not a positive integer", () => {
    const read = (body: Record<string, unknown>) => [getFormat('responses').passthrough.read!({ body, raw: JSON.stringify(body) }).vendorTools, factsOf(getFormat('responses').codec.decodeRequest(structuredClone(body)), 'responses').vendorTools];
    const search = { model: 'm', input: 'news?', tools: [{ type: 'web_search' }] };
    const bounded = { format: 'responses', types: ['web_search'], webSearch: ['web_search'], maxUses: 2 };
    expect(read({ ...search, max_tool_calls: 2 })).toEqual([bounded, bounded]);
    const unbounded = { format: 'responses', types: ['web_search'], webSearch: ['web_search'] };
    for (const max_tool_calls of [0, -1, 1.5, '2', null]) expect(read({ ...search, max_tool_calls })).toEqual([unbounded, unbounded]);
    const noSearch = { format: 'responses', types: ['code_interpreter'], webSearch: [] };
    expect(read({ model: 'm', input: 'x', tools: [{ type: 'code_interpreter', container: { type: 'auto' } }], max_tool_calls: 2 })).toEqual([noSearch, noSearch]);
    expect(read({ model: 'm', input: 'x', max_tool_calls: 2 })).toEqual([undefined, undefined]);
  });

  it("a Responses image_generation tool's model, quality, size and partial images bound the hold's images, read alike without and with the IR", () => {
    const read = (body: Record<string, unknown>) => [getFormat('responses').passthrough.read!({ body, raw: JSON.stringify(body) }).vendorTools, factsOf(getFormat('responses').codec.decodeRequest(structuredClone(body)), 'responses').vendorTools];
    const tool = { type: 'image_generation', model: 'gpt-image-1-mini', quality: 'low', size: '1024x1536', partial_images: 2 };
    const bounded = { format: 'responses', types: ['image_generation'], webSearch: [], imageGeneration: { model: 'gpt-image-1-mini', quality: 'low', size: '1024x1536', partialImages: 2, calls: 3 } };
    expect(read({ model: 'm', input: 'a cat', tools: [tool], max_tool_calls: 3 })).toEqual([bounded, bounded]);
    const plain = { format: 'responses', types: ['image_generation'], webSearch: [], imageGeneration: { calls: 1 } };
    expect(read({ model: 'm', input: 'a cat', tools: [{ type: 'image_generation' }] })).toEqual([plain, plain]);
  });

  it('Messages metadata.user_id is a session key; other formats have none', () => {
    const body = { model: 'm', max_tokens: 5, metadata: { user_id: 'u1' }, messages: [] };
    expect(getFormat('messages').passthrough.read!({ body, raw: JSON.stringify(body) }).userId).toBe('u1');
  });

  it('checks only what billing and routing read: unknown roles, fields and out-of-range values pass', () => {
    const body = { model: 'm', temperature: 9, future: { a: 1 }, messages: [{ role: 'critic', content: 'x' }] };
    expect(getFormat('chat').passthrough.read!({ body, raw: JSON.stringify(body) })).toMatchObject({ model: 'm', stream: false });
    const bad = (format: string, value: Json) => {
      try {
        getFormat(format).passthrough.read!({ body: value, raw: JSON.stringify(value) });
      } catch (error) {
        return error as { code: string; details?: { fields?: Json } };
      }
      throw new Error('accepted');
    };
    expect(bad('chat', { model: 'm', messages: [], stream: 'yes' })).toMatchObject({ code: 'validation_error', details: { fields: { stream: expect.any(String) } } });
    expect(bad('messages', { model: 'm', messages: [], max_tokens: -1 })).toMatchObject({ code: 'validation_error', details: { fields: { max_tokens: expect.any(String) } } });
    expect(bad('responses', { model: 42, input: 'x' })).toMatchObject({ code: 'validation_error', details: { fields: { model: 'must be a non-empty string' } } });
    expect(bad('chat', { model: 'm', messages: 'text' })).toMatchObject({ code: 'validation_error', details: { fields: { messages: 'must be an array' } } });
    // Items the reader walks for the input bound must be items: named, as the decoder did.
    expect(bad('chat', { model: 'm', messages: [1, '2', null] })).toMatchObject({ code: 'validation_error', details: { fields: { 'messages[0]': 'must be an object', 'messages[1]': 'must be an object', 'messages[2]': 'must be an object' } } });
    expect(bad('messages', { model: 'm', max_tokens: 4, messages: [{ role: 'user', content: 'x' }, 7] })).toMatchObject({ code: 'validation_error', details: { fields: { 'messages[1]': 'must be an object' } } });
    expect(bad('responses', { model: 'm', input: ['hi', { role: 'user', content: 'x' }, [1]] })).toMatchObject({ code: 'validation_error', details: { fields: { 'input[2]': 'must be an object or a string' } } });
    const many = bad('chat', { model: 'm', messages: Array.from({ length: 10_000 }, () => 0) });
    expect(Object.keys(many.details?.fields ?? {})).toHaveLength(8);
    // Unknown roles and item types still pass.
    const unknown = { model: 'm', input: [{ type: 'future_item', x: 1 }, 'plain'] };
    expect(getFormat('responses').passthrough.read!({ body: unknown, raw: JSON.stringify(unknown) })).toMatchObject({ model: 'm' });
  });

  describe('gemini: the model and stream flag from the path, the output cap from generationConfig', () => {
    const target = { model: 'gemini-2.5-flash', stream: false };
    const GEMINI: Array<[string, Json, { model: string; stream: boolean }]> = [
      ['plain text', { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] }, target],
      [
        'system, OpenAPI and JSON Schema tools, tool config, JSON schema output, thinking, an image',
        {
          systemInstruction: { parts: [{ text: 'Be brief.' }] },
          contents: [{ role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
          tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } }, required: ['city'] } }, { name: 'f', parametersJsonSchema: { type: 'object' } }] }],
          toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
          generationConfig: { temperature: 0.2, maxOutputTokens: 512, responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { a: { type: 'number' } } }, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
        },
        target,
      ],
      [
        'a streamed history: signed thought, calls with and without ids, results, a file',
        {
          contents: [
            { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }, { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } }] },
            { role: 'model', parts: [{ text: 'Two lookups.', thought: true, thoughtSignature: 'CiQB0e2Kb3dRh+/sigA==' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQB0e2Kb3dRh+/sigB==' }, { functionCall: { id: 'c2', name: 'get_weather', args: { city: 'Rome' } } }] },
            { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 18 } } }, { functionResponse: { id: 'c2', name: 'get_weather', response: { temp: 21 } } }] },
          ],
        },
        { model: 'google/gemini-3-pro-preview', stream: true },
      ],
      [
        "Google's REST examples' snake_case: system instruction, output cap, JSON schema output, an image, google_search",
        {
          system_instruction: { parts: [{ text: 'Answer in French, briefly, and never mention the weather in Lyon. '.repeat(40) }] },
          contents: [{ role: 'user', parts: [{ text: 'Weather?' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
          tools: [{ google_search: {} }],
          generation_config: { max_output_tokens: 512, response_mime_type: 'application/json', response_json_schema: { type: 'object', properties: { a: { type: 'number' } } } },
        },
        target,
      ],
      ['images asked for (responseModalities)', { contents: [{ role: 'user', parts: [{ text: 'Draw a cat' }] }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, target],
    ];

    it.each(GEMINI)('%s: as the decoder says, bound >= the IR bound', (_name, body, route) => {
      const definition = getFormat('gemini');
      const facts = definition.passthrough.read!({ body, raw: JSON.stringify(body), target: route });
      expectFactsAsDecoded(facts, definition.codec.decodeRequest(structuredClone(body), route), 'gemini');
      expect(facts.userId).toBeUndefined();
    });

    it('media is spotted by its member (inlineData, fileData), not a type key: an image is held an image allowance', () => {
      const read = (parts: Json[]) => getFormat('gemini').passthrough.read!({ body: { contents: [{ role: 'user', parts }] }, raw: '', target }).inputBound;
      expect(read([{ text: 'x' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }]) - read([{ text: 'x' }])).toBeGreaterThanOrEqual(2_500);
      expect(read([{ text: 'x' }, { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a.png' } }]) - read([{ text: 'x' }])).toBeGreaterThanOrEqual(2_500);
    });

    it('googleSearch is a vendor tool a Gemini upstream runs (and any format with a hosted web search)', () => {
      const body = { contents: [{ role: 'user', parts: [{ text: 'news?' }] }], tools: [{ googleSearch: {} }] };
      const googleSearch = { format: 'gemini', types: ['googleSearch'], webSearch: ['googleSearch'] };
      expect(getFormat('gemini').passthrough.read!({ body, raw: JSON.stringify(body), target }).vendorTools).toEqual(googleSearch);
      // Decoded (a conversion), the face says the same: the tool is Gemini's, not a bare web search.
      expect(factsOf(getFormat('gemini').codec.decodeRequest(structuredClone(body), target), 'gemini').vendorTools).toEqual(googleSearch);
    });

    it('checks only what billing and routing read: what the decoder refuses passes, the output cap and contents are checked', () => {
      const read = (body: Json) => getFormat('gemini').passthrough.read!({ body, raw: JSON.stringify(body), target });
      const refusedByDecoder = {
        contents: [{ role: 'critic', parts: [{ text: 'x' }, { futurePart: { a: 1 } }] }],
        generationConfig: { maxOutputTokens: 64, thinkingConfig: { thinkingBudget: 1, thinkingLevel: 'LOW' } },
        futureField: true,
      };
      expect(() => getFormat('gemini').codec.decodeRequest(structuredClone(refusedByDecoder), target)).toThrow();
      // Its cap is held with the thinking budget it names on top (1,024 at least: a Claude upstream is asked for both).
      expect(read(refusedByDecoder)).toMatchObject({ model: 'gemini-2.5-flash', stream: false, maxTokens: 64 + 1024 });
      // Google's REST docs' snake_case (proto JSON takes both): the passthrough reads it as media (test/e2e/google-gemini.test.ts forwards it), the decoder as the image it is.
      const snake = { contents: [{ role: 'user', parts: [{ inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } }] }] };
      expect(getFormat('gemini').codec.decodeRequest(structuredClone(snake), target).messages[0].content).toEqual([{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } }]);
      expect(read(snake).inputBound).toBeGreaterThanOrEqual(2_500);
      const bad = (body: Json) => {
        try {
          read(body);
        } catch (error) {
          return error as { code: string; details?: { fields?: Json } };
        }
        throw new Error('accepted');
      };
      expect(bad({ contents: [], generationConfig: { maxOutputTokens: -1 } })).toMatchObject({ code: 'validation_error', details: { fields: { 'generationConfig.maxOutputTokens': expect.any(String) } } });
      expect(bad({ contents: 'hi' })).toMatchObject({ code: 'validation_error', details: { fields: { contents: 'must be an array' } } });
    });
  });
});
