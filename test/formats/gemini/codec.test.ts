import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/index.ts';
import { getCodec, getFormat, framingOf } from '../../../src/formats/index.ts';
import { SKIP_SIGNATURE, camelizeGeminiBody, readGeminiPath } from '../../../src/formats/gemini/index.ts';
import { isVertexPath } from '../../../src/formats/gemini/read-path.ts';
import type { ChatRequest, StreamPart } from '../../../src/ir/types.ts';
import { STREAM_IDS } from '../stream-helpers.ts';

const gemini = getCodec('gemini');
const target = { model: 'google/gemini-3-pro-preview', stream: false };
const SIG_A = 'CiQB0e2Kb3dRh+/sigA==';
const SIG_B = 'CiQB0e2Kb3dRh+/sigB==';

/** A Gemini 3 answer with thoughts and two parallel calls, only the first signed (recorded shape, wire-formats-providers §1.10). */
const PARALLEL_ANSWER = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: 'Two lookups needed.', thought: true },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIG_A },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ],
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, thoughtsTokenCount: 45, cachedContentTokenCount: 100, toolUsePromptTokenCount: 5, totalTokenCount: 200 },
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'mDSjaOmZHLKj1dkPpZDcwAw',
};

function request(body: Record<string, unknown>, stream = false): ChatRequest {
  return gemini.decodeRequest(body, { ...target, stream });
}

describe('gemini codec', () => {
  it('rejects n > 1 with 422: the IR answer is one candidate, so candidateCount > 1 would bill candidates the client never sees', () => {
    const request: ChatRequest = { model: 'google/gemini-2.5-flash', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false };
    expect(() => gemini.encodeRequest({ ...request, n: 2 }, { upstreamModel: 'gemini-2.5-flash' })).toThrow(expect.objectContaining({ code: 'validation_error', status: 422 }));
    expect(gemini.encodeRequest({ ...request, n: 1 }, { upstreamModel: 'gemini-2.5-flash' })).not.toHaveProperty('generationConfig.candidateCount');
  });

  it('reads the model, the stream flag and the framing from the path', () => {
    expect(readGeminiPath('/v1beta/models/google/gemini-2.5-flash:generateContent', new URLSearchParams())).toEqual({ model: 'google/gemini-2.5-flash', stream: false, action: 'generateContent' });
    expect(readGeminiPath('/v1beta/models/models%2Fgemini-2.5-flash:streamGenerateContent', new URLSearchParams('alt=sse'))).toMatchObject({ model: 'gemini-2.5-flash', stream: true, framing: 'sse' });
    expect(readGeminiPath('/v1beta/models/gemini-2.5-flash:streamGenerateContent', new URLSearchParams())).toMatchObject({ framing: 'json-array' });
    expect(readGeminiPath('/v1beta/models/gemini-2.5-flash:embedContent', new URLSearchParams())).toBeUndefined();
  });

  it("reads Vertex AI's paths (@google/genai with vertexai: true): publisher google is the id as written, another publisher a provider", () => {
    const none = new URLSearchParams();
    expect(readGeminiPath('/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent', none)).toEqual({ model: 'gemini-2.5-flash', stream: false, action: 'generateContent' });
    expect(readGeminiPath('/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent', new URLSearchParams('alt=sse'))).toMatchObject({ model: 'gemini-2.5-flash', stream: true, framing: 'sse' });
    expect(readGeminiPath('/v1beta1/publishers/oc/models/gpt-4o:generateContent', none)).toMatchObject({ model: 'oc/gpt-4o' });
    expect(readGeminiPath('/v1beta1/publishers/google/models/gemini-2.5-flash:countTokens', none, new Set(['countTokens']))).toMatchObject({ model: 'gemini-2.5-flash', action: 'countTokens' });
    expect(readGeminiPath('/v1beta1/projects/p/locations/l/publishers/anthropic/models/claude-x:rawPredict', none)).toBeUndefined();
    expect(readGeminiPath('/v1beta1/projects/p/locations/l/endpoints/123:generateContent', none)).toBeUndefined();
  });

  it("reads a gateway id without models/ under Vertex's publisher google (the AI SDK's Vertex provider puts an id holding a slash in the path as it is)", () => {
    const none = new URLSearchParams();
    expect(readGeminiPath('/v1beta1/projects/p/locations/us-central1/publishers/google/oc/gpt-4o:generateContent', none)).toEqual({ model: 'oc/gpt-4o', stream: false, action: 'generateContent' });
    expect(readGeminiPath('/v1/publishers/google/google/gemini-2.5-flash:streamGenerateContent', new URLSearchParams('alt=sse'))).toMatchObject({ model: 'google/gemini-2.5-flash', stream: true, framing: 'sse' });
    expect(readGeminiPath('/publishers/google/oc%2Fgpt-4o:generateContent', none)).toMatchObject({ model: 'oc/gpt-4o' });
    expect(isVertexPath('/v1beta1/projects/p/locations/l/publishers/google/oc/gpt-4o:generateContent')).toBe(true);
    // An id without a slash is always under models/ (the SDK writes models/{id}); another publisher's path is not Gemini's.
    expect(readGeminiPath('/v1beta1/publishers/google/gemini-2.5-flash:generateContent', none)).toBeUndefined();
    expect(readGeminiPath('/v1beta1/projects/p/locations/l/publishers/anthropic/oc/claude-x:rawPredict', none)).toBeUndefined();
  });

  it('decodes a request: system, tools, toolConfig, generationConfig, thinking, JSON schema', () => {
    const ir = request({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } }, required: ['city'] } }] }, { googleSearch: {} }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: { temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 512, stopSequences: ['END'], responseMimeType: 'application/json', responseJsonSchema: { type: 'object' }, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    });
    expect(ir.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(ir.messages[0].content[1]).toEqual({ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' } });
    expect(ir.tools).toEqual([{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: ['string', 'null'] } }, required: ['city'] } }]);
    expect(ir.webSearch).toEqual({});
    expect(ir.toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(ir).toMatchObject({ temperature: 0.2, topP: 0.9, topK: 40, maxTokens: 512, stop: ['END'], responseFormat: { type: 'json_schema', schema: { type: 'object' } }, reasoning: { enabled: true, budgetTokens: 2048, summary: 'auto' } });
    expect(ir.extra).toEqual({ safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] });
  });

  it("reads thinkingLevel THINKING_LEVEL_UNSPECIFIED as no level (the enum's zero, the model's default), as Google does; Qwen Code sends it on every request", () => {
    expect(request({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'THINKING_LEVEL_UNSPECIFIED' } } }).reasoning).toEqual({ enabled: true, summary: 'auto' });
    expect(request({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { thinkingLevel: 'THINKING_LEVEL_UNSPECIFIED' } } }).reasoning).toBeUndefined();
    // Unset, it is no second way of thinking beside a budget.
    expect(request({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { thinkingBudget: 512, thinkingLevel: 'THINKING_LEVEL_UNSPECIFIED' } } }).reasoning).toEqual({ enabled: true, budgetTokens: 512 });
    expect(() => request({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { thinkingLevel: 'EXTREME' } } })).toThrow(GatewayError);
  });

  it('refuses a thinkingLevel that names a prototype key (toString, constructor, __proto__): never an effort read off Object.prototype', () => {
    for (const thinkingLevel of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(() => request({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { thinkingLevel } } })).toThrow(/thinkingConfig\.thinkingLevel/);
    }
  });

  it("reads proto JSON's snake_case field names as Google does (its REST examples write them); the client's data keeps its own names", () => {
    const camel = {
      systemInstruction: { parts: [{ text: 'You are a cat.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } }, { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city_name: 'Paris', unit_system: { is_metric: true } } }, thoughtSignature: SIG_A }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 21 } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'OBJECT', properties: { city_name: { type: 'STRING', maxLength: 40 }, unit_system: { type: 'OBJECT', properties: { is_metric: { type: 'BOOLEAN' } } } }, required: ['city_name'], propertyOrdering: ['city_name', 'unit_system'] } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: { maxOutputTokens: 256, stopSequences: ['END'], topP: 0.5, responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { snake_key: { type: 'string' } } }, thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    };
    const snake = {
      system_instruction: { parts: [{ text: 'You are a cat.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0K' } }, { file_data: { mime_type: 'application/pdf', file_uri: 'https://example.com/a.pdf' } }] },
        { role: 'model', parts: [{ function_call: { name: 'get_weather', args: { city_name: 'Paris', unit_system: { is_metric: true } } }, thought_signature: SIG_A }] },
        { role: 'user', parts: [{ function_response: { name: 'get_weather', response: { temp_c: 21 } } }] },
      ],
      tools: [{ function_declarations: [{ name: 'get_weather', parameters: { type: 'OBJECT', properties: { city_name: { type: 'STRING', max_length: 40 }, unit_system: { type: 'OBJECT', properties: { is_metric: { type: 'BOOLEAN' } } } }, required: ['city_name'], property_ordering: ['city_name', 'unit_system'] } }] }],
      tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['get_weather'] } },
      generation_config: { max_output_tokens: 256, stop_sequences: ['END'], top_p: 0.5, response_mime_type: 'application/json', response_json_schema: { type: 'object', properties: { snake_key: { type: 'string' } } }, thinking_config: { thinking_budget: 1024, include_thoughts: true } },
      safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    };
    const expected = request(camel);
    expect(expected.system).toEqual([{ type: 'text', text: 'You are a cat.' }]);
    expect(expected.maxTokens).toBe(256);
    expect(request(snake)).toEqual(expected);
    // The client's data keeps its names: arguments, results, schema property names and a JSON schema.
    const call = expected.messages[1].content[0] as { arguments: string };
    expect(JSON.parse(call.arguments)).toEqual({ city_name: 'Paris', unit_system: { is_metric: true } });
    expect(Object.keys((expected.tools![0].parameters as { properties: object }).properties)).toEqual(['city_name', 'unit_system']);
    expect(expected.responseFormat).toEqual({ type: 'json_schema', name: 'response', schema: { type: 'object', properties: { snake_key: { type: 'string' } } } });
    // A camelCase body is not copied; both spellings: the camelCase one is read.
    expect(camelizeGeminiBody(camel)).toBe(camel);
    // Only snake_case names are renamed: a client's __proto__ or _private key is not a proto field.
    const odd = request(JSON.parse('{"contents":[{"parts":[{"text":"x"}]}],"__proto__":{"kept":1},"_x_y":1,"y_":2}') as Record<string, unknown>).extra!;
    expect(Object.keys(odd)).toEqual(['__proto__', '_x_y', 'y_']);
    expect(request({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { maxOutputTokens: 9 }, generation_config: { max_output_tokens: 5 } }).maxTokens).toBe(9);
  });

  it("countTokens takes the wrapped request in snake_case too (generate_content_request), and names the model inside it, in the client's spelling", () => {
    const count = getFormat('gemini').countTokens!;
    const snake = { generate_content_request: { contents: [{ role: 'user', parts: [{ text: 'How many?' }] }], system_instruction: { parts: [{ text: 'Be brief.' }] } } };
    const ir = count.decode(snake, 'google/gemini-2.5-flash');
    expect(ir.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(ir.messages).toHaveLength(1);
    expect(count.upstreamBody!(snake, 'gemini-2.5-flash')).toEqual({ generate_content_request: { ...snake.generate_content_request, model: 'models/gemini-2.5-flash' } });
  });

  it('refuses what has no equivalent only on a conversion (unconvertible), and a bad body with a 422 naming the field', () => {
    const ir = request({ contents: [{ role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }] }], tools: [{ codeExecution: {} }], cachedContent: 'cachedContents/abc' });
    expect(ir.unconvertible?.map((u) => u.field)).toEqual(['contents[0].parts[0].executableCode', 'tools[0].codeExecution', 'cachedContent']);
    let error: unknown;
    try {
      request({ contents: [{ role: 'bot', parts: [] }], generationConfig: { thinkingConfig: { thinkingBudget: 1, thinkingLevel: 'LOW' } } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).details).toEqual({ fields: { 'contents[0].role': "must be 'user' or 'model'", 'generationConfig.thinkingConfig': 'thinkingBudget and thinkingLevel cannot both be set' } });
  });

  it('decodes an answer: thoughts, parallel calls (first one signed), finish and usage', () => {
    const response = gemini.decodeResponse(PARALLEL_ANSWER);
    expect(response.content[0]).toEqual({ type: 'reasoning', text: 'Two lookups needed.', origin: 'google' });
    expect(response.content[1]).toMatchObject({ type: 'tool_call', name: 'get_weather', arguments: '{"city":"Paris"}', providerMetadata: { google: { thoughtSignature: SIG_A } } });
    expect(response.content[2]).not.toHaveProperty('providerMetadata');
    expect(response.finishReason).toBe('tool_calls');
    expect(response.usage).toEqual({ inputTokens: 125, outputTokens: 75, cacheReadTokens: 100, reasoningTokens: 45 });
    expect(response).toMatchObject({ id: 'mDSjaOmZHLKj1dkPpZDcwAw', model: 'gemini-3-pro-preview' });
  });

  for (const client of ['chat', 'messages', 'responses'] as const) {
    it(`a signed call goes to a ${client} client and comes back to Gemini byte-exact; an unsigned first call gets the skip value`, () => {
      const response = gemini.decodeResponse(PARALLEL_ANSWER);
      const codec = getCodec(client);
      const clientRequest = { model: 'm', system: [], messages: [], stream: false } as ChatRequest;
      const body = codec.encodeResponse(response, clientRequest) as Record<string, any>;
      // The client's own next request, with the answer echoed and both results.
      let next: Record<string, unknown>;
      if (client === 'chat') {
        const message = body.choices[0].message;
        next = { model: 'm', messages: [{ role: 'user', content: 'Weather?' }, message, ...message.tool_calls.map((call: any) => ({ role: 'tool', tool_call_id: call.id, content: '{"temp":18}' }))] };
      } else if (client === 'messages') {
        const uses = body.content.filter((b: any) => b.type === 'tool_use');
        next = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }, { role: 'assistant', content: body.content }, { role: 'user', content: uses.map((u: any) => ({ type: 'tool_result', tool_use_id: u.id, content: '{"temp":18}' })) }] };
      } else {
        const calls = body.output.filter((i: any) => i.type === 'function_call');
        next = { model: 'm', input: [{ role: 'user', content: 'Weather?' }, ...body.output, ...calls.map((c: any) => ({ type: 'function_call_output', call_id: c.call_id, output: '{"temp":18}' }))] };
      }
      const upstream = gemini.encodeRequest(codec.decodeRequest(next), { upstreamModel: 'gemini-3-pro-preview' }) as Record<string, any>;
      const model = upstream.contents[1];
      expect(model.role).toBe('model');
      const calls = model.parts.filter((p: any) => p.functionCall);
      expect(calls.map((p: any) => p.thoughtSignature)).toEqual([SIG_A, undefined]);
      expect(calls.map((p: any) => p.functionCall.args)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
      expect(upstream.contents[2].parts.map((p: any) => p.functionResponse)).toEqual([
        { name: 'get_weather', response: { temp: 18 } },
        { name: 'get_weather', response: { temp: 18 } },
      ]);

      // The same history from a client that dropped the signature (another model's turn): the skip value.
      const dropped = gemini.encodeRequest(
        { model: 'm', system: [], stream: false, messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }, { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}' }] }, { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_1', content: 'ok' }] }] },
        { upstreamModel: 'gemini-3-pro-preview' },
      ) as Record<string, any>;
      expect(dropped.contents[1].parts[0]).toEqual({ functionCall: { id: 'call_1', name: 'f', args: {} }, thoughtSignature: SKIP_SIGNATURE });
      expect(dropped.contents[2].parts[0]).toEqual({ functionResponse: { id: 'call_1', name: 'f', response: { result: 'ok' } } });
    });
  }

  it('a Messages upstream\'s signed thinking reaches a Gemini client as a thought and comes back to Anthropic byte-exact', () => {
    const body = gemini.encodeResponse(
      { id: 'msg_1', model: 'claude', created: 1, content: [{ type: 'reasoning', text: 'hmm', signature: 'EqQBCgIY+/==' }, { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{}' }], finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
      { model: 'm', system: [], messages: [], stream: false },
    ) as Record<string, any>;
    const parts = body.candidates[0].content.parts;
    const next = request({ contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { id: 'toolu_1', name: 'f', response: { ok: true } } }] }] });
    const anthropic = getCodec('messages').encodeRequest(next, { upstreamModel: 'claude', defaultMaxTokens: 100 }) as Record<string, any>;
    expect(anthropic.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'hmm', signature: 'EqQBCgIY+/==' });
    expect(anthropic.messages[1].content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_1' });
    expect(anthropic.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
  });

  // The AI SDK's Google provider keeps a thought part's signature only when the part has text (an
  // empty part's signature it gives to an open text block, else drops; whole answers: to the last
  // part); so another vendor's signature, which comes at the end of its block, goes on the block's
  // last text, held back one delta for it.
  it("a streamed Messages upstream's signed thinking puts its signature on the thought's last text, so a client that drops empty parts still sends it back", () => {
    const encoder = gemini.createStreamEncoder({ model: 'm', system: [], messages: [], stream: true }, STREAM_IDS);
    const upstream: StreamPart[] = [
      { type: 'start', id: 'msg_1', model: 'claude', created: 1 },
      { type: 'reasoning-start' },
      { type: 'reasoning-delta', text: 'Let me ' },
      { type: 'reasoning-delta', text: 'think.' },
      { type: 'reasoning-signature', signature: 'EqQBCgIY+/==' },
      { type: 'reasoning-end' },
      { type: 'tool-call-start', index: 0, id: 'toolu_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'end' },
    ];
    const parts = upstream.flatMap((part) => encoder.encode(part)).flatMap((record) => JSON.parse(String(record.data)).candidates[0].content.parts);
    const thoughts = parts.filter((part: any) => part.thought);
    expect(thoughts.map((part: any) => part.text).join('')).toBe('Let me think.');
    expect(thoughts.every((part: any) => part.text !== '')).toBe(true);
    // What the client sends back: the thought's text with the signature of its parts that have text.
    const signature = thoughts.filter((part: any) => part.text !== '' && part.thoughtSignature).at(-1)?.thoughtSignature;
    const call = parts.find((part: any) => part.functionCall);
    const next = request({ contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: [{ text: 'Let me think.', thought: true, thoughtSignature: signature }, call] }, { role: 'user', parts: [{ functionResponse: { id: call.functionCall.id, name: 'f', response: { ok: true } } }] }] });
    const anthropic = getCodec('messages').encodeRequest(next, { upstreamModel: 'claude', defaultMaxTokens: 100 }) as Record<string, any>;
    expect(anthropic.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'Let me think.', signature: 'EqQBCgIY+/==' });
  });

  it('a thought cut by an error still reaches the client before the error, its last delta too', () => {
    const encoder = gemini.createStreamEncoder({ model: 'm', system: [], messages: [], stream: true }, STREAM_IDS);
    const records = ([
      { type: 'start', id: 'msg_1', model: 'claude', created: 1 },
      { type: 'reasoning-start' }, { type: 'reasoning-delta', text: 'Let me ' }, { type: 'reasoning-delta', text: 'think.' },
      { type: 'error', error: new GatewayError('provider_error', 'cut') },
    ] as StreamPart[]).flatMap((part) => encoder.encode(part)).map((record) => JSON.parse(String(record.data)));
    // Before: the held last delta ('think.') was dropped; the error record was the last word without it.
    const thoughts = records.flatMap((r: any) => r.candidates?.[0]?.content?.parts ?? []).filter((p: any) => p.thought).map((p: any) => p.text);
    expect(thoughts.join('')).toBe('Let me think.');
    expect(records.at(-1).error).toBeDefined();
  });

  // gemini-cli keeps no thought parts in its history, only each turn's signed first functionCall (what
  // Gemini 3 needs), so another vendor's signed thinking rides that call's signature too.
  it("another vendor's signed thinking also rides the answer's first call, so a client that drops thoughts (gemini-cli) still sends it back, once", () => {
    const answer = { id: 'msg_1', model: 'claude', created: 1, content: [{ type: 'reasoning' as const, text: 'hmm', signature: 'EqQBCgIY+/==' }, { type: 'tool_call' as const, id: 'toolu_1', name: 'f', arguments: '{}' }, { type: 'tool_call' as const, id: 'toolu_2', name: 'f', arguments: '{}' }], finishReason: 'tool_calls' as const, usage: { inputTokens: 1, outputTokens: 1 } };
    const whole = (gemini.encodeResponse(answer, { model: 'm', system: [], messages: [], stream: false }) as Record<string, any>).candidates[0].content.parts;
    const encoder = gemini.createStreamEncoder({ model: 'm', system: [], messages: [], stream: true }, STREAM_IDS);
    const streamed = ([
      { type: 'start', id: 'msg_1', model: 'claude', created: 1 },
      { type: 'reasoning-start' }, { type: 'reasoning-delta', text: 'hmm' }, { type: 'reasoning-signature', signature: 'EqQBCgIY+/==' }, { type: 'reasoning-end' },
      { type: 'tool-call-start', index: 0, id: 'toolu_1', name: 'f' }, { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'toolu_2', name: 'f' }, { type: 'tool-call-end', index: 1 },
      { type: 'finish', finishReason: 'tool_calls' }, { type: 'end' },
    ] as StreamPart[]).flatMap((part) => encoder.encode(part)).flatMap((record) => JSON.parse(String(record.data)).candidates[0].content.parts);
    for (const parts of [whole, streamed]) {
      const calls = parts.filter((part: any) => part.functionCall);
      // The call's value holds the thought's text too: Anthropic checks the signature against it.
      expect(calls[0].thoughtSignature).toMatch(/^gwpm:/);
      expect(calls[1].thoughtSignature).toBeUndefined();
      const toAnthropic = (model: any[]) => {
        const next = request({ contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: model }, { role: 'user', parts: calls.map((c: any) => ({ functionResponse: { id: c.functionCall.id, name: 'f', response: { ok: true } } })) }], generationConfig: { thinkingConfig: { thinkingBudget: 1024 } } });
        return getCodec('messages').encodeRequest(next, { upstreamModel: 'claude', defaultMaxTokens: 4096 }) as Record<string, any>;
      };
      // gemini-cli: the calls only. The AI SDK: the thought and the calls (one thinking block, not two).
      for (const model of [calls, parts.filter((part: any) => part.thought || part.functionCall)]) {
        const anthropic = toAnthropic(model);
        expect(anthropic.messages[1].content.map((b: any) => b.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
        expect(anthropic.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'hmm', signature: 'EqQBCgIY+/==' });
        expect(anthropic.thinking).toMatchObject({ type: 'enabled' });
      }
    }
  });

  it("a model's plain reasoning marked with it (DeepSeek's reasoning_content) also rides the first call and goes back to that model once", () => {
    const answer = { id: 'ds-1', model: 'deepseek-v4-pro', created: 1, content: [{ type: 'reasoning' as const, text: 'hmm', providerMetadata: { chat: { model: 'deepseek-v4-pro' } } }, { type: 'tool_call' as const, id: 'call_1', name: 'f', arguments: '{}' }], finishReason: 'tool_calls' as const, usage: { inputTokens: 1, outputTokens: 1 } };
    const parts = (gemini.encodeResponse(answer, { model: 'm', system: [], messages: [], stream: false }) as Record<string, any>).candidates[0].content.parts;
    const calls = parts.filter((part: any) => part.functionCall);
    expect(calls[0].thoughtSignature).toMatch(/^gwpm:/);
    // gemini-cli: the call only. The AI SDK: the thought and the call (one reasoning_content, not the text twice).
    for (const model of [calls, parts.filter((part: any) => part.thought || part.functionCall)]) {
      const next = request({ contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: model }, { role: 'user', parts: [{ functionResponse: { id: calls[0].functionCall.id, name: 'f', response: { ok: true } } }] }] });
      const chat = getCodec('chat').encodeRequest(next, { upstreamModel: 'deepseek-v4-pro', defaultMaxTokens: 4096 }) as Record<string, any>;
      expect(chat.messages[1]).toMatchObject({ role: 'assistant', reasoning_content: 'hmm', tool_calls: [{ function: { name: 'f' } }] });
      // Another Chat model never gets it.
      const other = getCodec('chat').encodeRequest(next, { upstreamModel: 'gpt-4o-mini', defaultMaxTokens: 4096 }) as Record<string, any>;
      expect(other.messages[1].reasoning_content).toBeUndefined();
    }
  });

  it('a call cut part-way (arguments no JSON object) is left out, whole and streamed: MAX_TOKENS for the cap, MALFORMED_FUNCTION_CALL otherwise', () => {
    const cut = '{"file_path":"/tmp/a';
    for (const finishReason of ['length', 'tool_calls'] as const) {
      const answer = { id: 'c1', model: 'm', created: 1, content: [{ type: 'tool_call' as const, id: 'call_1', name: 'ok', arguments: '{"a":1}' }, { type: 'tool_call' as const, id: 'call_2', name: 'f', arguments: cut }], finishReason, usage: { inputTokens: 1, outputTokens: 1 } };
      const whole = (gemini.encodeResponse(answer, { model: 'm', system: [], messages: [], stream: false }) as Record<string, any>).candidates[0];
      const encoder = gemini.createStreamEncoder({ model: 'm', system: [], messages: [], stream: true }, STREAM_IDS);
      const records = ([
        { type: 'start', id: 'c1', model: 'm', created: 1 },
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'ok' }, { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":1}' }, { type: 'tool-call-end', index: 0 },
        { type: 'tool-call-start', index: 1, id: 'call_2', name: 'f' }, { type: 'tool-call-delta', index: 1, argumentsDelta: cut }, { type: 'tool-call-end', index: 1 },
        { type: 'finish', finishReason }, { type: 'end' },
      ] as StreamPart[]).flatMap((part) => encoder.encode(part)).map((record) => JSON.parse(String(record.data)).candidates[0]);
      const reason = finishReason === 'length' ? 'MAX_TOKENS' : 'MALFORMED_FUNCTION_CALL';
      expect(whole.content.parts.map((part: any) => part.functionCall?.name)).toEqual(['ok']);
      expect(whole.finishReason).toBe(reason);
      expect(records.flatMap((candidate) => candidate.content.parts).filter((part: any) => part.functionCall).map((part: any) => part.functionCall.name)).toEqual(['ok']);
      expect(records.at(-1).finishReason).toBe(reason);
    }
    // A call without arguments is whole.
    const none = { id: 'c1', model: 'm', created: 1, content: [{ type: 'tool_call' as const, id: 'call_1', name: 'now', arguments: '' }], finishReason: 'tool_calls' as const, usage: { inputTokens: 1, outputTokens: 1 } };
    const candidate = (gemini.encodeResponse(none, { model: 'm', system: [], messages: [], stream: false }) as Record<string, any>).candidates[0];
    expect(candidate.content.parts[0].functionCall).toMatchObject({ name: 'now', args: {} });
    expect(candidate.finishReason).toBe('STOP');
  });

  it("a turn whose function calling failed (MALFORMED_FUNCTION_CALL) is the upstream's error with Gemini's finishMessage, whole and streamed, its usage billed", () => {
    const candidate = { content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call: print(x(', index: 0 };
    const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 };
    let thrown: unknown;
    try {
      gemini.decodeResponse({ candidates: [candidate], usageMetadata });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({ code: 'provider_error', message: 'MALFORMED_FUNCTION_CALL: Malformed function call: print(x(' });
    const decoder = gemini.createStreamDecoder();
    const parts = [{ data: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Let me ' }] }, index: 0 }] }) }, { data: JSON.stringify({ candidates: [candidate], usageMetadata }) }].flatMap((record) => decoder.push(record as any));
    parts.push(...decoder.end());
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-start', 'text-delta', 'error', 'usage', 'end']);
    expect(parts[3]).toMatchObject({ error: { code: 'provider_error', message: 'MALFORMED_FUNCTION_CALL: Malformed function call: print(x(' } });
    // Another finish is an answer as before.
    expect(gemini.decodeResponse({ candidates: [{ ...candidate, finishReason: 'STOP' }], usageMetadata }).finishReason).toBe('stop');
  });

  it("a call's carried thinking goes back first, before a redacted block that came back as a thought (the AI SDK's whole answer keeps only the last signature of its thoughts)", () => {
    const answer = { id: 'msg_1', model: 'claude', created: 1, content: [{ type: 'reasoning' as const, text: 'hmm', signature: 'EqQBCgIY+/==' }, { type: 'reasoning' as const, text: '', redacted: true, data: 'RED+/==' }, { type: 'tool_call' as const, id: 'toolu_1', name: 'f', arguments: '{}' }], finishReason: 'tool_calls' as const, usage: { inputTokens: 1, outputTokens: 1 } };
    const parts = (gemini.encodeResponse(answer, { model: 'm', system: [], messages: [], stream: false }) as Record<string, any>).candidates[0].content.parts;
    const [signed, redacted, call] = parts;
    // What @ai-sdk/google sends back: the empty redacted thought's signature went onto the thought with text.
    const model = [{ text: signed.text, thought: true, thoughtSignature: redacted.thoughtSignature }, call];
    const next = request({ contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: model }, { role: 'user', parts: [{ functionResponse: { id: call.functionCall.id, name: 'f', response: { ok: true } } }] }], generationConfig: { thinkingConfig: { thinkingBudget: 1024 } } });
    const anthropic = getCodec('messages').encodeRequest(next, { upstreamModel: 'claude', defaultMaxTokens: 4096 }) as Record<string, any>;
    expect(anthropic.messages[1].content.map((b: any) => b.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
    expect(anthropic.messages[1].content.slice(0, 2)).toEqual([{ type: 'thinking', thinking: 'hmm', signature: 'EqQBCgIY+/==' }, { type: 'redacted_thinking', data: 'RED+/==' }]);
  });

  it("a failed call travels as Google's `error` key one way and Anthropic's is_error the other", () => {
    const asked = request({ contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: [{ functionCall: { id: 'toolu_1', name: 'f', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { id: 'toolu_1', name: 'f', response: { error: 'no such file' } } }] }] });
    const anthropic = getCodec('messages').encodeRequest(asked, { upstreamModel: 'claude', defaultMaxTokens: 100 }) as Record<string, any>;
    expect(anthropic.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true });
    const fromClaude = getCodec('messages').decodeRequest(
      { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such file', is_error: true }] }] },
      { ...target, stream: false },
    );
    const upstream = gemini.encodeRequest(fromClaude, { upstreamModel: 'gemini-2.5-flash' }) as Record<string, any>;
    expect(upstream.contents[2].parts[0].functionResponse.response).toEqual({ error: 'no such file' });
  });

  it("a passthrough to Gemini leaves out another vendor's carried thoughts (gwpm:) and gives the turn's unsigned first call the skip value; nothing else changes", () => {
    const prepare = getFormat('gemini').passthrough.prepare!;
    const plain = { contents: [{ role: 'user', parts: [{ text: 'q' }] }] };
    expect(prepare({ body: plain, raw: JSON.stringify(plain), stream: false })).toBeUndefined();
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'q' }] },
        { role: 'model', parts: [{ text: 'hmm', thought: true, thought_signature: 'gwpm:eyJzIjoxfQ' }, { function_call: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }, { functionResponse: { name: 'g', response: {} } }] },
        { role: 'model', parts: [{ text: 'only a thought', thought: true, thoughtSignature: 'gwpm:eyJzIjoyfQ' }] },
        { role: 'model', parts: [{ text: 'ok', thoughtSignature: SIG_A }] },
      ],
    };
    const out = prepare({ body, raw: JSON.stringify(body), stream: true })!;
    expect(out.raw).toBe(JSON.stringify(out.body));
    expect((out.body as typeof body).contents).toEqual([
      body.contents[0],
      { role: 'model', parts: [{ function_call: { name: 'f', args: {} }, thoughtSignature: SKIP_SIGNATURE }, { functionCall: { name: 'g', args: {} } }] },
      body.contents[2],
      body.contents[4],
    ]);
  });

  it('streams: a signature on a later empty part signs the block; both framings round-trip at every split', () => {
    const records = [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }], modelVersion: 'gemini-3-pro-preview', responseId: 'r1', usageMetadata: { promptTokenCount: 7 } },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'lo "[x]" {y}' }] }, index: 0 }], modelVersion: 'gemini-3-pro-preview', responseId: 'r1' },
      { candidates: [{ content: { role: 'model', parts: [{ text: '', thoughtSignature: SIG_B }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 }, modelVersion: 'gemini-3-pro-preview', responseId: 'r1' },
    ].map((value) => ({ data: JSON.stringify(value) }));
    const decoder = gemini.createStreamDecoder();
    const parts: StreamPart[] = [...records.flatMap((r) => decoder.push(r)), ...decoder.end()];
    expect(parts.filter((p) => p.type !== 'start')).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo "[x]" {y}' },
      { type: 'text-end', providerMetadata: { google: { thoughtSignature: SIG_B } } },
      { type: 'finish', finishReason: 'stop' },
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 3 } },
      { type: 'end' },
    ]);
    const format = getFormat('gemini');
    for (const name of ['sse', 'json-array']) {
      const framing = framingOf(format, name);
      const writer = framing.createWriter();
      const bytes = Buffer.from(String(writer.write(records)) + String(writer.end()));
      if (name === 'json-array') expect(JSON.parse(bytes.toString())).toHaveLength(3);
      for (const split of [1, 3, 17, bytes.length]) {
        const reader = framing.createReader();
        const read: string[] = [];
        for (let at = 0; at < bytes.length; at += split) {
          reader.push(bytes.subarray(at, at + split));
          read.push(...reader.records.map((r) => r.data));
        }
        expect(read, `${name} split ${split}`).toEqual(records.map((r) => r.data));
      }
    }
  });

  it('encodes errors in Google\'s shape with the envelope fields', () => {
    const body = gemini.encodeError(new GatewayError('validation_error', 'Bad field.', { details: { fields: { 'contents[0].role': 'bad' } } }), { requestId: 'req_1', correlationId: 'req_1' }) as Record<string, any>;
    // Google never answers 422: an invalid argument is 400 INVALID_ARGUMENT, the fields in a BadRequest detail.
    expect(body.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'Bad field.',
      request_id: 'req_1',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'validation_error', domain: 'gateway', metadata: { 'contents[0].role': 'bad' } },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'contents[0].role', description: 'bad' }] },
      ],
    });
    expect(gemini.errorStatus?.(new GatewayError('validation_error', 'Bad field.'))).toBe(400);
    expect(body).toMatchObject({ correlation_id: 'req_1', timestamp: expect.any(Number) });
    // A wrong method is UNIMPLEMENTED (not FAILED_PRECONDITION); a throttle says its wait in a RetryInfo, as Google's do.
    expect(gemini.encodeError(new GatewayError('method_not_allowed', 'No.', { status: 405 }), { requestId: 'r', correlationId: 'r' })).toMatchObject({ error: { code: 405, status: 'UNIMPLEMENTED' } });
    const throttled = gemini.encodeError(new GatewayError('rate_limit_exceeded', 'Slow down.', { retryAfter: 7 }), { requestId: 'r', correlationId: 'r' }) as Record<string, any>;
    expect(throttled.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' });
    const resetsAt = Math.floor(Date.now() / 1000) + 86_400;
    const quota = gemini.encodeError(new GatewayError('quota_exceeded', 'Used up.', { details: { resets_at: resetsAt } }), { requestId: 'r', correlationId: 'r' }) as Record<string, any>;
    const wait = quota.error.details.find((d: Record<string, unknown>) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
    expect(Number.parseInt(wait.retryDelay, 10)).toBeGreaterThan(86_000);
    expect(gemini.decodeError(429, { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' } })).toEqual({ message: 'Quota exceeded.', type: 'RESOURCE_EXHAUSTED' });
    const retry = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '31.5s' };
    expect(gemini.decodeError(429, { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED', details: [retry] } })).toEqual({ message: 'Quota exceeded.', type: 'RESOURCE_EXHAUSTED', retryAfter: 32, retryAfterMs: 31_500, upstreamDetails: [retry] });
    // A wait known to the millisecond goes out so (gemini-cli reads "0.25s").
    const precise = gemini.encodeError(new GatewayError('rate_limit_exceeded', 'Slow down.', { retryAfter: 1, retryAfterMs: 250 }), { requestId: 'r', correlationId: 'r' }) as Record<string, any>;
    expect(precise.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.25s' });
  });

  it("relays a Google upstream's own details after the gateway's (its RetryInfo is the gateway's)", () => {
    const daily = { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', quotaValue: '250' }] };
    const help = { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] };
    const retry = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' };
    const said = gemini.decodeError(429, { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED', details: [daily, help, retry, 'not typed'] } });
    expect(said.upstreamDetails).toEqual([daily, help, retry]);
    const error = new GatewayError('rate_limit_exceeded', 'Slow down.', { retryAfter: 17, details: { provider: 'google', upstream_details: said.upstreamDetails } });
    const body = gemini.encodeError(error, { requestId: 'r', correlationId: 'r' }) as Record<string, any>;
    expect(body.error.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'rate_limit_exceeded', domain: 'gateway', metadata: {} },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' },
      daily,
      help,
    ]);
  });
});

describe("Gemini's model list face (GET /v1beta/models)", () => {
  const face = getFormat('gemini').models!;
  const listed = (i: number) => ({ id: `p/m${i}`, provider: 'p', displayName: `M${i}`, type: 'chat', contextWindow: 1000, maxOutputTokens: 100, capabilities: i === 0 ? ['streaming', 'thinking'] : ['streaming'] });
  const models = [0, 1, 2].map(listed);
  const list = (query: string) => face.list(models, new URLSearchParams(query)) as { models: Array<Record<string, unknown>>; nextPageToken?: string };
  const refused = (query: string) => {
    const error = (() => {
      try {
        list(query);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error, query).toBeInstanceOf(GatewayError);
    return (error as GatewayError).details;
  };

  it("names the POST methods AI Studio's model paths serve, not Vertex's predict", () => {
    expect(face.readPostMethod!('p/m0:generateContent')).toBe('generateContent');
    expect(face.readPostMethod!('p/m0:predict')).toBeUndefined();
    expect(face.readPostMethod!('p/m0-v1:0')).toBeUndefined();
  });

  it("a Model says whether it thinks (Google's `thinking`), from the catalog's capabilities", () => {
    expect(face.one(listed(0))).toMatchObject({ name: 'models/p/m0', inputTokenLimit: 1000, outputTokenLimit: 100, thinking: true });
    expect(face.one(listed(1))).toMatchObject({ thinking: false });
  });

  it('pages with pageSize and the nextPageToken it gave; 0 or none is the default; over 1000 is 1000', () => {
    expect(list('pageSize=2')).toMatchObject({ models: [{ name: 'models/p/m0' }, { name: 'models/p/m1' }], nextPageToken: '2' });
    expect(list('pageSize=2&pageToken=2')).toEqual({ models: [expect.objectContaining({ name: 'models/p/m2' })] });
    expect(list('pageSize=0').models).toHaveLength(3);
    expect(list('pageSize=5000').models).toHaveLength(3);
  });

  it('refuses a negative or non-integer pageSize and a pageToken it never gave (it started over from the first page)', () => {
    expect(refused('pageSize=-1')).toEqual({ fields: { pageSize: expect.any(String) } });
    expect(refused('pageSize=ten')).toEqual({ fields: { pageSize: expect.any(String) } });
    expect(refused('pageToken=abc')).toEqual({ fields: { pageToken: expect.any(String) } });
    expect(refused('pageToken=-2')).toEqual({ fields: { pageToken: expect.any(String) } });
  });
});

/** The fields a face's 422 names (none when it took the body). */
function fieldsRefused(decode: () => unknown): string[] {
  try {
    decode();
  } catch (thrown) {
    return Object.keys(((thrown as GatewayError).details as { fields: Record<string, string> }).fields);
  }
  return [];
}

describe("Gemini's embeddings face (…:embedContent, …:batchEmbedContents)", () => {
  const face = getFormat('gemini').embeddings!;
  const q = new URLSearchParams();

  it('reads the URL under /v1beta and /v1; other actions are not its own', () => {
    expect(face.readPath('/v1beta/models/mock/embed:batchEmbedContents', q)).toEqual({ model: 'mock/embed', batch: true });
    expect(face.readPath('/v1/models/models/mock/embed:embedContent', q)).toEqual({ model: 'mock/embed', batch: false });
    expect(face.readPath('/v1beta/models/mock/embed:generateContent', q)).toBeUndefined();
  });

  it("turns Google's body (either proto JSON spelling) into OpenAI's and the vectors into Google's answer", () => {
    expect(face.decode({ content: { parts: [{ text: 'a' }, { text: 'b' }] }, output_dimensionality: 8, taskType: 'RETRIEVAL_QUERY' }, { model: 'm', batch: false })).toEqual({ model: 'm', input: ['ab'], dimensions: 8 });
    expect(face.decode({ requests: [{ model: 'models/m', content: { parts: [{ text: 'x' }] } }, { content: { parts: [{ text: 'y' }] } }] }, { model: 'm', batch: true })).toEqual({ model: 'm', input: ['x', 'y'] });
    expect(face.encode([[1, 2]], { model: 'm', batch: false }, [3])).toEqual({ embedding: { values: [1, 2] } });
    expect(face.encode([[1], [2]], { model: 'm', batch: true }, [1, 2])).toEqual({ embeddings: [{ values: [1] }, { values: [2] }] });
  });

  it("on Vertex's paths: :predict's instances and parameters, :embedContent's embedContentConfig; :predict under /v1beta is not its own", () => {
    const predict = face.readPath('/v1beta1/projects/p/locations/l/publishers/mock/models/embed:predict', q)!;
    expect(predict).toEqual({ model: 'mock/embed', batch: true, shape: 'predict' });
    expect(face.readPath('/v1beta/models/mock/embed:predict', q)).toBeUndefined();
    expect(face.decode({ instances: [{ content: 'a', task_type: 'RETRIEVAL_DOCUMENT' }, { content: 'bc' }], parameters: { outputDimensionality: 8, autoTruncate: true } }, predict)).toEqual({ model: 'mock/embed', input: ['a', 'bc'], dimensions: 8 });
    expect(face.encode([[1], [2]], predict, [2, 5])).toEqual({ predictions: [{ embeddings: { values: [1], statistics: { token_count: 2 } } }, { embeddings: { values: [2], statistics: { token_count: 5 } } }] });
    const one = face.readPath('/v1/publishers/google/models/gemini-embedding-2:embedContent', q)!;
    expect(one).toEqual({ model: 'gemini-embedding-2', batch: false, shape: 'vertex' });
    expect(face.decode({ content: { parts: [{ text: 'x' }] }, embedContentConfig: { outputDimensionality: 4, taskType: 'RETRIEVAL_QUERY' } }, one)).toEqual({ model: 'gemini-embedding-2', input: ['x'], dimensions: 4 });
    expect(face.encode([[1, 2]], one, [7])).toEqual({ embedding: { values: [1, 2] }, usageMetadata: { promptTokenCount: 7 } });
    const refused = (body: Record<string, unknown>) => fieldsRefused(() => face.decode(body, predict));
    expect(refused({})).toEqual(['instances']);
    expect(refused({ instances: [{ content: 'a' }, { text: 'multimodal' }] })).toEqual(['instances[1].content']);
    expect(refused({ instances: [{ content: 'a' }], parameters: { outputDimensionality: 0 } })).toEqual(['parameters.outputDimensionality']);
    // generateImages on a model that makes no images reaches this face (the URL is the same): told it is not an image model, not about embedding.
    const chat = face.readPath('/v1beta1/projects/p/locations/l/publishers/mock/models/echo:predict', q)!;
    expect(() => face.decode({ instances: [{ prompt: 'a cat' }], parameters: { sampleCount: 1 } }, chat)).toThrow(
      "The model 'mock/echo' makes no images: instances[0] holds a prompt, as generateImages sends, and only an image model draws one (`gateway models ls` lists them as image_generation).",
    );
  });

  it('refuses what it cannot send on: no requests, a non-text part, two output sizes in one batch', () => {
    const fields = (body: Record<string, unknown>, batch: boolean) => {
      try {
        face.decode(body, { model: 'm', batch });
      } catch (thrown) {
        return Object.keys(((thrown as GatewayError).details as { fields: Record<string, string> }).fields);
      }
      return [];
    };
    expect(fields({ requests: [] }, true)).toEqual(['requests']);
    expect(fields({ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] } }, false)).toEqual(['body.content.parts[0]']);
    expect(fields({ requests: [{ content: { parts: [{ text: 'x' }] }, outputDimensionality: 8 }, { content: { parts: [{ text: 'y' }] }, outputDimensionality: 16 }] }, true)).toEqual(['requests']);
  });
});

describe("Imagen's face (…/publishers/{p}/models/{m}:predict, /v1beta/models/{m}:predict)", () => {
  const face = getFormat('gemini').images!;
  const q = new URLSearchParams();
  const target = { model: 'mock/image' };
  const refused = (body: Record<string, unknown>) => fieldsRefused(() => face.decode(body, target));

  it("reads Vertex's paths and AI Studio's (the AI SDK's google.image(); @google/genai asks Vertex's only)", () => {
    expect(face.readPath('/v1beta1/projects/p/locations/l/publishers/mock/models/image:predict', q)).toEqual(target);
    expect(face.readPath('/v1/publishers/google/models/imagen-4.0-generate-001:predict', q)).toEqual({ model: 'imagen-4.0-generate-001' });
    expect(face.readPath('/v1beta/models/mock/image:predict', q)).toEqual(target);
    expect(face.readPath('/v1beta/models/models/imagen-4.0-generate-001:predict', q)).toEqual({ model: 'imagen-4.0-generate-001' });
    expect(face.readPath('/v1beta1/publishers/mock/models/image:generateContent', q)).toBeUndefined();
  });

  it("turns Imagen's instance and parameters into OpenAI's images body (other parameters as they are) and the images into predictions", () => {
    const body = { instances: [{ prompt: 'A red cube' }], parameters: { sampleCount: 2, aspectRatio: '16:9', negativePrompt: 'blue', seed: 7, personGeneration: 'dont_allow' }, labels: { team: 'a' } };
    expect(face.decode(body, target)).toEqual({ model: 'mock/image', prompt: 'A red cube', n: 2, size: '1792x1024', negative_prompt: 'blue', seed: 7, personGeneration: 'dont_allow', response_format: 'b64_json' });
    expect(face.decode({ instances: [{ prompt: 'x' }] }, target)).toEqual({ model: 'mock/image', prompt: 'x', response_format: 'b64_json' });
    expect(face.encode([{ data: 'AAA=', mimeType: 'image/png' }, { data: 'BBB=', mimeType: 'image/jpeg', revisedPrompt: 'A shiny red cube' }], target)).toEqual({
      predictions: [
        { bytesBase64Encoded: 'AAA=', mimeType: 'image/png' },
        { bytesBase64Encoded: 'BBB=', mimeType: 'image/jpeg', prompt: 'A shiny red cube' },
      ],
    });
  });

  it('refuses what it cannot serve: no or two instances, no prompt, an image to edit, an unknown aspect ratio, a GCS output, OpenAI fields in parameters', () => {
    expect(refused({})).toEqual(['instances']);
    expect(refused({ instances: [{ prompt: 'a' }, { prompt: 'b' }] })).toEqual(['instances']);
    expect(refused({ instances: [{ text: 'a' }] })).toEqual(['instances[0].prompt']);
    // editImage, upscaleImage and the like ask the same :predict with images in the instance: not generated from the prompt alone.
    expect(refused({ instances: [{ prompt: 'a', referenceImages: [{ referenceType: 'REFERENCE_TYPE_RAW', referenceId: 1 }] }] })).toEqual(['instances[0].referenceImages']);
    // upscaleImage sends no prompt at all (recontextImage and segmentImage may not): the image is what is not served, not a missing prompt.
    expect(refused({ instances: [{ image: { bytesBase64Encoded: 'iVBO' } }], parameters: { mode: 'upscale' } })).toEqual(['instances[0].image']);
    expect(refused({ instances: [{ personImage: { image: { bytesBase64Encoded: 'iVBO' } } }] })).toEqual(['instances[0].personImage']);
    expect(refused({ instances: [{ prompt: 'a' }], parameters: { aspectRatio: '5:4' } })).toEqual(['parameters.aspectRatio']);
    expect(refused({ instances: [{ prompt: 'a' }], parameters: { storageUri: 'gs://bucket/out' } })).toEqual(['parameters.storageUri']);
    expect(refused({ instances: [{ prompt: 'a' }], parameters: { response_format: 'url' } })).toEqual(['parameters.response_format']);
    expect(refused({ instances: [{ prompt: 'a' }], parameters: 'x' })).toEqual(['parameters']);
    // embedContent on an image model asks this face (the URL is the same): told it is an image model, not asked for a prompt.
    for (const instances of [[{ content: 'hello' }], [{ content: 'hello' }, { content: 'world' }]]) {
      expect(() => face.decode({ instances, parameters: { outputDimensionality: 8 } }, target)).toThrow(
        "The model 'mock/image' is an image model: the instances hold content, as embedContent sends, and only an embedding model embeds it (`gateway models ls` lists them as embedding).",
      );
    }
  });
});

describe("Vertex AI's publisher models face (GET …/publishers/google/models[/{m}])", () => {
  const face = getFormat('gemini').modelPaths!;
  const listed = (i: number) => ({ id: `p/m${i}`, provider: 'p', displayName: `M${i}`, type: 'chat' });

  it('reads the list, the tuned list under the project, and one model as generateContent reads it', () => {
    expect(face.readPath('/v1beta1/publishers/google/models')).toEqual({ list: 'all' });
    expect(face.readPath('/v1/projects/p/locations/us-central1/models')).toEqual({ list: 'none' });
    expect(face.readPath('/v1beta1/publishers/google/models/gemini-2.5-flash')).toEqual({ id: 'gemini-2.5-flash', rest: 'gemini-2.5-flash' });
    expect(face.readPath('/v1beta1/publishers/google/models/oc/gpt-4o')).toEqual({ id: 'oc/gpt-4o', rest: 'oc/gpt-4o' });
    expect(face.readPath('/v1beta1/projects/p/locations/l/publishers/oc/models/gpt-4o')).toEqual({ id: 'oc/gpt-4o', rest: 'gpt-4o' });
    expect(face.readPath('/v1beta1/projects/p/locations/l/endpoints')).toBeUndefined();
    expect(face.readPath('/v1beta1/publishers/oc/models')).toBeUndefined();
  });

  it('a PublisherModel named publishers/google/models/{gateway id}, paged with pageSize and nextPageToken', () => {
    expect(face.one(listed(0))).toMatchObject({ name: 'publishers/google/models/p/m0', versionId: '001', displayName: 'M0' });
    expect(face.list([0, 1, 2].map(listed), new URLSearchParams('pageSize=2'))).toMatchObject({ publisherModels: [{ name: 'publishers/google/models/p/m0' }, { name: 'publishers/google/models/p/m1' }], nextPageToken: '2' });
    expect(face.readPostMethod!('p/m0:predict')).toBe('predict');
  });
});

