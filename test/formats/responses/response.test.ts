import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/index.ts';
import type { ChatRequest, ChatResponse } from '../../../src/ir/types.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { carryOpaque, readCarried, usageOfFailedAnswer } from '../../../src/formats/shared/index.ts';
import { readJsonFixture } from './helpers.ts';

const request: ChatRequest = {
  model: 'openai/gpt-5-mini',
  system: [{ type: 'text', text: 'Be nice.' }],
  messages: [],
  stream: false,
  maxTokens: 100,
  temperature: 0.3,
  tools: [{ name: 'get_weather', parameters: { type: 'object' }, strict: true }],
  toolChoice: 'required',
  reasoning: { enabled: true, effort: 'low', summary: 'auto' },
  previousResponseId: 'resp_prev',
  store: true,
  metadata: { a: 'b' },
  extra: { hostedTools: [{ type: 'web_search' }], text: { verbosity: 'low' }, truncation: 'auto' },
};

describe('responses decodeResponse', () => {
  it("reads what OpenAI's image tool made and used (tool_usage.image_gen, apart from usage) and its model", () => {
    const response = responsesCodec.decodeResponse(readJsonFixture('response-image-tool.json'));
    expect(response.usage).toEqual({ inputTokens: 2340, outputTokens: 88, reasoningTokens: 64, imageGeneration: { images: 1, inputTokens: 50, outputTokens: 272, model: 'gpt-image-1-mini' } });
  });


  it('decodes reasoning, text and function calls in order, with usage', () => {
    const response = responsesCodec.decodeResponse(readJsonFixture('response-tool-call.json'));
    expect(response).toEqual({
      id: 'resp_68af0009json',
      model: 'gpt-5-mini-2025-08-07',
      created: 1756300000,
      content: [
        { type: 'reasoning', text: 'Need the weather.', itemId: 'rs_68af0009a', encrypted: 'gAAAAABopaque==' },
        { type: 'text', text: 'Let me check.', itemId: 'msg_68af0009b' },
        { type: 'tool_call', id: 'call_P1', name: 'get_weather', arguments: '{"city":"Paris"}', itemId: 'fc_68af0009c' },
      ],
      finishReason: 'tool_calls',
      usage: { inputTokens: 50, outputTokens: 60, cacheReadTokens: 32, reasoningTokens: 40 },
    } satisfies ChatResponse);
  });

  it('maps incomplete/content_filter to content_filter', () => {
    expect(responsesCodec.decodeResponse(readJsonFixture('response-incomplete.json')).finishReason).toBe('content_filter');
    const body = { ...readJsonFixture('response-incomplete.json'), incomplete_details: { reason: 'max_output_tokens' } };
    expect(responsesCodec.decodeResponse(body).finishReason).toBe('length');
  });

  it('throws a GatewayError for a failed response and for an invalid body', () => {
    const failed = { ...readJsonFixture('response-incomplete.json'), status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow' } };
    expect(() => responsesCodec.decodeResponse(failed)).toThrow(GatewayError);
    try {
      responsesCodec.decodeResponse(failed);
    } catch (error) {
      expect((error as GatewayError).code).toBe('rate_limit_exceeded');
    }
    expect(() => responsesCodec.decodeResponse({ id: 'x' })).toThrow(/invalid Responses body/);
  });

  it('a failed response that reports usage throws an error carrying it (its web_search_call items counted), to be billed as its stream is', () => {
    const failed = { id: 'resp_f', model: 'gpt-5', status: 'failed', output: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }], error: { code: 'server_error', message: 'boom' }, usage: { input_tokens: 40, output_tokens: 7 } };
    const thrown = (body: unknown): unknown => {
      try {
        responsesCodec.decodeResponse(body);
      } catch (error) {
        return error;
      }
      throw new Error('decoded');
    };
    const error = thrown(failed);
    expect(error).toMatchObject({ code: 'provider_error', message: 'boom' });
    expect(usageOfFailedAnswer(error)).toEqual({ inputTokens: 40, outputTokens: 7, webSearchRequests: 1 });
    // Without usage: the error alone, nothing to bill.
    expect(usageOfFailedAnswer(thrown({ ...failed, usage: null }))).toBeUndefined();
  });
});

describe('responses encodeResponse', () => {
  const response: ChatResponse = {
    id: 'msg_01XYZ',
    model: 'claude-sonnet-4',
    created: 1700000000,
    content: [
      { type: 'reasoning', text: 'thinking...', signature: 'sig/+==' },
      { type: 'text', text: 'Hello ' },
      { type: 'text', text: 'world' },
      { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: 5, cacheWriteTokens: 3, reasoningTokens: 4 },
  };

  it('produces the §3.4 response object with all fields', () => {
    const body = responsesCodec.encodeResponse(response, request);
    expect(body).toMatchObject({
      id: 'resp_msg_01XYZ',
      object: 'response',
      created_at: 1700000000,
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: 'Be nice.',
      max_output_tokens: 100,
      model: 'claude-sonnet-4',
      parallel_tool_calls: true,
      previous_response_id: 'resp_prev',
      reasoning: { effort: 'low', summary: 'auto' },
      store: true,
      temperature: 0.3,
      top_p: 1,
      text: { verbosity: 'low', format: { type: 'text' } },
      tool_choice: 'required',
      truncation: 'auto',
      user: null,
      metadata: { a: 'b' },
      usage: {
        input_tokens: 20,
        input_tokens_details: { cached_tokens: 5, cache_write_tokens: 3 },
        output_tokens: 10,
        output_tokens_details: { reasoning_tokens: 4 },
        total_tokens: 30,
      },
    });
    expect(body.tools).toEqual([
      { type: 'function', name: 'get_weather', description: null, parameters: { type: 'object' }, strict: true },
      { type: 'web_search' },
    ]);
  });

  it('encodes output items: reasoning with stashed signature, one message per text run (its uncited texts one output_text, as OpenAI writes it), function_call', () => {
    const output = responsesCodec.encodeResponse(response, request).output as Array<Record<string, unknown>>;
    expect(output).toEqual([
      { id: expect.stringMatching(/^rs_/), type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking...' }], encrypted_content: expect.stringMatching(/^gwpm:/) },
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello world', annotations: [], logprobs: [] }],
      },
      { id: 'fc_toolu_1', type: 'function_call', status: 'completed', arguments: '{"city":"Oslo"}', call_id: 'toolu_1', name: 'get_weather' },
    ]);
    expect(readCarried(output[0].encrypted_content as string)).toEqual({ signature: 'sig/+==' });
  });

  it('maps length and content_filter to status incomplete with the reason', () => {
    const length = responsesCodec.encodeResponse({ ...response, finishReason: 'length' }, request);
    expect(length).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const filtered = responsesCodec.encodeResponse({ ...response, content: [{ type: 'text', text: 'x' }], finishReason: 'content_filter' }, request);
    expect(filtered).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
    expect((filtered.output as Array<{ status: string }>)[0].status).toBe('incomplete');
  });

  it('round-trips through decodeResponse', () => {
    const decoded = responsesCodec.decodeResponse(responsesCodec.encodeResponse(response, request));
    expect(decoded.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool_call']);
    expect(decoded.content[0]).toMatchObject({ type: 'reasoning', text: 'thinking...', signature: 'sig/+==' });
    expect(decoded.finishReason).toBe('tool_calls');
    expect(decoded.usage).toEqual(response.usage);
  });
});
