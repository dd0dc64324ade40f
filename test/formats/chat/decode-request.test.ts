import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/index.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { readJsonFixture } from '../stream-helpers.ts';

function reject(body: unknown): GatewayError {
  try {
    chatCodec.decodeRequest(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the request to be rejected');
}

describe('chat decodeRequest', () => {
  const request = chatCodec.decodeRequest(readJsonFixture('chat/request-tools.json'));

  it('hoists leading system and developer messages into system, in order', () => {
    expect(request.system).toEqual([
      { type: 'text', text: 'You are a weather bot.' },
      { type: 'text', text: 'Answer briefly.' },
    ]);
    expect(request.messages[0].role).toBe('user');
  });

  it('decodes user text, images (data URL split, http kept, detail kept) and file parts', () => {
    expect(request.messages[0].content).toEqual([
      { type: 'text', text: 'Weather in Paris and the time in Berlin? See the map.' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'high' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/map.jpg' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0xLjQ=' }, filename: 'forecast.pdf' },
    ]);
  });

  it('decodes assistant tool calls with ids and argument text as sent', () => {
    expect(request.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', arguments: '{"location":"Paris"}' },
        { type: 'tool_call', id: 'functions.get_time:1', name: 'get_time', arguments: '' },
      ],
    });
  });

  it('turns each tool message into an IR tool message with one result', () => {
    expect(request.messages.slice(2, 4)).toEqual([
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', content: '18°C, cloudy' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'functions.get_time:1', content: '14:05' }] },
    ]);
    expect(request.messages[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Thanks! Anything else?' }] });
  });

  it('maps parameters, tools and tool_choice', () => {
    expect(request).toMatchObject({
      model: 'openai/gpt-4o',
      stream: true,
      includeUsage: true,
      maxTokens: 900,
      temperature: 1.4,
      topP: 0.9,
      stop: ['END'],
      user: 'user-42',
      toolChoice: 'required',
      parallelToolCalls: false,
    });
    expect(request.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather',
        parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        strict: true,
      },
      { name: 'get_time' },
    ]);
  });

  it('keeps unknown and unmapped fields in extra', () => {
    expect(request.extra).toEqual({ logit_bias: { '50256': -100 }, service_tier: 'flex' });
  });

  it('falls back to max_tokens and reads named tool_choice', () => {
    const decoded = chatCodec.decodeRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 77,
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    expect(decoded.maxTokens).toBe(77);
    expect(decoded.toolChoice).toEqual({ type: 'tool', name: 'get_time' });
    expect(decoded.stream).toBe(false);
  });

  it('maps reasoning_effort and the non-standard thinking field', () => {
    expect(chatCodec.decodeRequest({ model: 'm', messages: [], reasoning_effort: 'high' }).reasoning).toEqual({ enabled: true, effort: 'high' });
    expect(chatCodec.decodeRequest({ model: 'm', messages: [], reasoning_effort: 'none' }).reasoning).toEqual({ enabled: false, effort: 'none' });
    expect(chatCodec.decodeRequest({ model: 'm', messages: [], thinking: { type: 'enabled', budget_tokens: 3000 } }).reasoning).toEqual({
      enabled: true,
      budgetTokens: 3000,
    });
  });

  it("maps OpenRouter's reasoning object when neither reasoning_effort nor thinking is there", () => {
    const decode = (reasoning: unknown, extra: Record<string, unknown> = {}) => chatCodec.decodeRequest({ model: 'm', messages: [], reasoning, ...extra }).reasoning;
    expect(decode({ effort: 'high' })).toEqual({ enabled: true, effort: 'high' });
    expect(decode({ max_tokens: 2000 })).toEqual({ enabled: true, budgetTokens: 2000 });
    expect(decode({ enabled: true })).toEqual({ enabled: true });
    expect(decode({ enabled: false, max_tokens: 2000 })).toEqual({ enabled: false });
    expect(decode({ effort: 'none' })).toEqual({ enabled: false, effort: 'none' });
    expect(decode({ exclude: true })).toBeUndefined();
    expect(decode({ effort: 'high' }, { reasoning_effort: 'low' })).toEqual({ enabled: true, effort: 'low' });
    expect(chatCodec.decodeRequest({ model: 'm', messages: [], reasoning: { effort: 'high' } }).extra).toEqual({ reasoning: { effort: 'high' } });
    expect(reject({ model: 'm', messages: [], reasoning: { effort: 'huge' } }).details?.fields).toEqual({ 'reasoning.effort': expect.any(String) });
    expect(reject({ model: 'm', messages: [], reasoning: { max_tokens: 0 } }).details?.fields).toEqual({ 'reasoning.max_tokens': expect.any(String) });
    expect(reject({ model: 'm', messages: [], reasoning: 'high' }).details?.fields).toEqual({ reasoning: expect.any(String) });
  });

  it('reads signed reasoning a client sends back (reasoning_details), in order', () => {
    const decoded = chatCodec.decodeRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'done',
          reasoning_content: 'AB',
          reasoning_details: [
            { type: 'reasoning.text', text: 'A', signature: 'sig-1', format: 'anthropic-claude-v1', index: 0 },
            { type: 'reasoning.encrypted', data: 'opaque', format: 'anthropic-claude-v1', index: 1 },
            { type: 'reasoning.text', text: 'B', signature: 'sig-2', format: 'anthropic-claude-v1', index: 2 },
          ],
        },
      ],
    });
    expect(decoded.messages[1].content).toEqual([
      { type: 'reasoning', text: 'A', signature: 'sig-1' },
      { type: 'reasoning', text: '', redacted: true, data: 'opaque' },
      { type: 'reasoning', text: 'B', signature: 'sig-2' },
      { type: 'text', text: 'done' },
    ]);
  });

  it("accepts OpenRouter's reasoning string and LiteLLM's thinking_blocks", () => {
    const openrouter = chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'assistant', content: 'x', reasoning: 'why' }] });
    expect(openrouter.messages[0].content[0]).toEqual({ type: 'reasoning', text: 'why' });
    const litellm = chatCodec.decodeRequest({
      model: 'm',
      messages: [{ role: 'assistant', content: 'x', thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'redacted_thinking', data: 'd' }] }],
    });
    expect(litellm.messages[0].content.slice(0, 2)).toEqual([
      { type: 'reasoning', text: 't', signature: 's' },
      { type: 'reasoning', text: '', redacted: true, data: 'd' },
    ]);
  });

  it('keeps a mid-conversation system message in place', () => {
    const decoded = chatCodec.decodeRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'system', content: 'b' },
      ],
    });
    expect(decoded.system).toEqual([]);
    expect(decoded.messages[1]).toEqual({ role: 'system', content: [{ type: 'text', text: 'b' }] });
  });

  it('accepts file parts by id and by file_url (gateway extension)', () => {
    const decoded = chatCodec.decodeRequest({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_id: 'file-abc' } },
            { type: 'file', file: { file_url: 'https://example.com/r.pdf', filename: 'r.pdf' } },
          ],
        },
      ],
    });
    expect(decoded.messages[0].content).toEqual([
      { type: 'file', source: { kind: 'file_id', fileId: 'file-abc' } },
      { type: 'file', source: { kind: 'url', url: 'https://example.com/r.pdf' }, filename: 'r.pdf' },
    ]);
  });

  it('drops unknown content part types and tools instead of failing', () => {
    const decoded = chatCodec.decodeRequest({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'future_part', x: 1 }] }],
      tools: [{ type: 'future_tool', future_tool: { name: 'x' } }, { type: 'custom', custom: { name: 'grammar' } }],
    });
    expect(decoded.messages[0].content).toEqual([{ type: 'text', text: 'a' }]);
    // A custom (freeform) tool is the client's own: a function of one string `input` elsewhere.
    expect(decoded.tools).toEqual([expect.objectContaining({ name: 'grammar', custom: {}, parameters: expect.objectContaining({ required: ['input'] }) })]);
  });

  it('narrows tools to an allowed_tools choice', () => {
    const decoded = chatCodec.decodeRequest({
      model: 'm',
      messages: [],
      tools: [
        { type: 'function', function: { name: 'a' } },
        { type: 'function', function: { name: 'b' } },
      ],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'b' } }] } },
    });
    expect(decoded.toolChoice).toBe('required');
    expect(decoded.tools).toEqual([{ name: 'b' }]);
  });

  describe('rejects', () => {
    it('a body that is not an object with 400', () => {
      expect(reject('hello')).toMatchObject({ code: 'bad_request', status: 400 });
    });

    it('a missing model with 400', () => {
      expect(reject({ messages: [] })).toMatchObject({ code: 'bad_request', status: 400 });
    });

    it('missing messages with 400', () => {
      expect(reject({ model: 'm' })).toMatchObject({ code: 'bad_request', status: 400 });
      expect(reject({ model: 'm', messages: null })).toMatchObject({ code: 'bad_request', status: 400 });
    });

    it('a required field of the wrong type with 422 naming it (spec §7)', () => {
      expect(reject({ model: 'm', messages: 'hi' })).toMatchObject({ code: 'validation_error', status: 422, details: { fields: { messages: 'must be an array' } } });
      expect(reject({ model: 5, messages: [] })).toMatchObject({ code: 'validation_error', details: { fields: { model: 'must be a non-empty string' } } });
      expect(reject({ model: '', messages: {} }).details?.fields).toEqual({ model: 'must be a non-empty string', messages: 'must be an array' });
    });

    it('an unknown role: kept out of the IR and named as unconvertible (passthrough forwards it; conversion 422s)', () => {
      const request = chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'wizard', content: 'x' }] });
      expect(request.messages).toHaveLength(1);
      expect(request.unconvertible).toEqual([{ field: 'messages[1].role', message: "role 'wizard' has no equivalent in another format" }]);
      expect(reject({ model: 'm', messages: [{ role: 42, content: 'x' }] }).details?.fields).toHaveProperty(['messages[0].role']);
    });

    it('audio output (modalities with audio): unconvertible, so a conversion 422s instead of answering text without the audio asked for', () => {
      const request = chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } });
      expect(request.unconvertible).toEqual([{ field: 'modalities', message: 'audio output has no equivalent in another format' }]);
      expect(chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], modalities: ['text'] }).unconvertible).toBeUndefined();
    });

    it('out-of-range values with 422 listing every field', () => {
      const error = reject({ model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 3, n: 0, reasoning_effort: 'extreme' });
      expect(error.code).toBe('validation_error');
      expect(Object.keys(error.details?.fields as object).sort()).toEqual(['n', 'reasoning_effort', 'temperature']);
    });

    it('a missing required field is 400 bad_request naming it, every other problem still listed (spec §7)', () => {
      const error = reject({ model: 'm', messages: [{ role: 'tool', content: 'x' }], temperature: 3 });
      expect(error).toMatchObject({ code: 'bad_request', status: 400, details: { missing: ['messages[0].tool_call_id'] } });
      expect(Object.keys(error.details?.fields as object).sort()).toEqual(['messages[0].tool_call_id', 'temperature']);
    });

    it('a tool call without a function name with 422', () => {
      const error = reject({ model: 'm', messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: {} }] }] });
      expect(error.details?.fields).toHaveProperty(['messages[0].tool_calls[0].function.name']);
    });
  });
});
