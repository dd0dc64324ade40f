import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/ir/types.ts';
import { chatCodec, encodeChatRequest } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { readJsonFixture } from '../stream-helpers.ts';

function base(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'x', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false, ...overrides };
}

describe('chat encodeRequest', () => {
  it('re-encodes a decoded chat request faithfully (tools, ids, args, extra)', () => {
    const request = chatCodec.decodeRequest(readJsonFixture('chat/request-tools.json'));
    const body = chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4o' });
    expect(body).toMatchObject({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 900,
      temperature: 1.4,
      stop: ['END'],
      tool_choice: 'required',
      parallel_tool_calls: false,
      user: 'user-42',
      logit_bias: { '50256': -100 },
      service_tier: 'flex',
    });
    const messages = body.messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'user', 'assistant', 'tool', 'tool', 'user']);
    expect(messages[3]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
        { id: 'functions.get_time:1', type: 'function', function: { name: 'get_time', arguments: '' } },
      ],
    });
    expect(messages[5]).toEqual({ role: 'tool', tool_call_id: 'functions.get_time:1', content: '14:05' });
    expect(messages[2].content).toEqual([
      { type: 'text', text: 'Weather in Paris and the time in Berlin? See the map.' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
      { type: 'image_url', image_url: { url: 'https://example.com/map.jpg' } },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'forecast.pdf' } },
    ]);
  });

  it('adapts OpenAI reasoning models: developer role, no sampling, max_completion_tokens', () => {
    const body = chatCodec.encodeRequest(base({ system: [{ type: 'text', text: 'rules' }], temperature: 0.3, topP: 0.9, maxTokens: 100 }), { upstreamModel: 'o3-mini' });
    expect(body.messages).toEqual([
      { role: 'developer', content: 'rules' },
      { role: 'user', content: 'hi' },
    ]);
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('max_tokens');
    expect(body.max_completion_tokens).toBe(100);
  });

  it('drops top_k (Chat has none) and maps a thinking budget to the nearest effort', () => {
    const body = chatCodec.encodeRequest(base({ topK: 40, reasoning: { enabled: true, budgetTokens: 3900 } }), { upstreamModel: 'gpt-4o' });
    expect(body).not.toHaveProperty('top_k');
    expect(body.reasoning_effort).toBe('high');
  });

  it('asks for usage on every upstream stream', () => {
    const body = chatCodec.encodeRequest(base({ stream: true }), { upstreamModel: 'gpt-4o' });
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it('encodes named tool choice, json_schema response format and parameter-less tools', () => {
    const body = chatCodec.encodeRequest(
      base({
        tools: [{ name: 'now' }],
        toolChoice: { type: 'tool', name: 'now' },
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object', additionalProperties: false }, strict: true },
      }),
      { upstreamModel: 'gpt-4o' },
    );
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'now' } }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'now' } });
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object', additionalProperties: false }, strict: true } });
  });

  it('turns a Messages request into Chat: N tool_result blocks → N tool messages, images after them', () => {
    const request = messagesCodec.decodeRequest(readJsonFixture('messages/request-tools.json'));
    const body = chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4o' });
    const messages = body.messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'user', 'assistant', 'tool', 'tool', 'user', 'user']);
    expect(messages[4]).toEqual({ role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '18°C, cloudy' });
    expect(messages[5]).toEqual({ role: 'tool', tool_call_id: 'toolu_01NoArgs', content: 'Missing location; here is the radar.' });
    expect(messages[6]).toEqual({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }] });
    expect(messages[7]).toEqual({ role: 'user', content: 'Thanks!' });
    expect(messages[3]).toMatchObject({
      content: 'Checking.',
      tool_calls: [
        { id: 'toolu_01A09q90qw90lq917835lq9', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
        { id: 'toolu_01NoArgs', function: { name: 'get_weather', arguments: '{}' } },
      ],
    });
    // Foreign reasoning is not sent to a Chat upstream.
    expect(messages[3]).not.toHaveProperty('reasoning_content');
    expect(body).toMatchObject({ max_tokens: 2048, stop: ['END'], user: 'user-42', parallel_tool_calls: false, reasoning_effort: 'low' });
  });

  it('sends documents as file parts: base64 → file_data, URL → file_url (gateway extension), text → text', () => {
    const request = messagesCodec.decodeRequest(readJsonFixture('messages/request-tools.json'));
    const body = chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4o' });
    const content = (body.messages as Array<{ content: unknown[] }>)[2].content;
    expect(content.slice(3)).toEqual([
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'forecast.pdf' } },
      { type: 'file', file: { file_url: 'https://example.com/report.pdf' } },
      { type: 'text', text: 'notes\n\nPlain notes.' },
    ]);
  });

  it('merges consecutive assistant turns so tool_calls are followed by their tool messages', () => {
    const request = messagesCodec.decodeRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'Let me look.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }] },
      ],
    });
    const messages = chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4o' }).messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]).toMatchObject({ content: 'Let me look.', tool_calls: [{ id: 'toolu_1' }] });
  });

  it("drops assistant reasoning by default and sends it with assistantReasoning:'send'", () => {
    const request = base({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'why', signature: 'SIG' }, { type: 'text', text: 'a' }] },
      ],
    });
    const dropped = (chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4o' }).messages as Array<Record<string, unknown>>)[1];
    expect(dropped).toEqual({ role: 'assistant', content: 'a' });
    const sent = (encodeChatRequest(request, { upstreamModel: 'x', assistantReasoning: 'send' }).messages as Array<Record<string, unknown>>)[1];
    expect(sent).toEqual({
      role: 'assistant',
      content: 'a',
      reasoning_content: 'why',
      reasoning_details: [{ type: 'reasoning.text', text: 'why', signature: 'SIG', format: 'anthropic-claude-v1', index: 0 }],
    });
  });

  it('rejects image file ids with 422 (not portable to Chat)', () => {
    const request = base({ messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'file_id', fileId: 'file_1' } }] }] });
    expect(() => chatCodec.encodeRequest(request, { upstreamModel: 'gpt-4o' })).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });

  it("fits a user over OpenAI's 64 characters (Claude Code's metadata.user_id) to its sha256: the same user, the same id", () => {
    const claudeCode = '{"device_id":"5d8d4086e6a441b5b0d94bf71d2dbb2edd9f4bab7340dc00909c0e7f3a1aa0da","account_uuid":"","session_id":"aeff2676-f5c0-4aa2-a786-8f09ad1e6f68"}';
    const sent = (user: string) => (chatCodec.encodeRequest(base({ user }), { upstreamModel: 'gpt-4o-mini' }) as Record<string, unknown>).user as string;
    expect(sent(claudeCode)).toMatch(/^[0-9a-f]{64}$/);
    expect(sent(claudeCode)).toBe(sent(claudeCode));
    expect(sent(claudeCode.replace('aeff', 'beff'))).not.toBe(sent(claudeCode));
    expect(sent('user-42')).toBe('user-42');
    expect(sent('u'.repeat(64))).toBe('u'.repeat(64));
  });
  it("carries a Responses client's service_tier, safety_identifier and text.verbosity to a Chat upstream (Chat takes all three top-level)", () => {
    const decoded = responsesCodec.decodeRequest({
      model: 'x', input: 'hi', service_tier: 'flex', safety_identifier: 'hashed-user-1', text: { verbosity: 'low' },
    });
    // What prepareCall does on a conversion: the inbound format's extra fields go nowhere else.
    const body = chatCodec.encodeRequest({ ...decoded, extra: undefined }, { upstreamModel: 'gpt-5-mini', converted: true });
    expect(body).toMatchObject({ service_tier: 'flex', safety_identifier: 'hashed-user-1', verbosity: 'low' });
    // Only GPT-5 takes verbosity: another Chat upstream (Groq, o3) would refuse the request for it.
    for (const model of ['llama-3.3-70b', 'o3', 'gpt-5-chat-latest']) {
      expect(chatCodec.encodeRequest({ ...decoded, extra: undefined }, { upstreamModel: model, converted: true })).not.toHaveProperty('verbosity');
    }
  });

  it("sends a Responses client's OpenAI-only fields (Codex's prompt_cache_key) to OpenAI's models only: other Chat servers refuse them", () => {
    const decoded = responsesCodec.decodeRequest({
      model: 'x', input: 'hi', prompt_cache_key: 'conv-1', prompt_cache_retention: '24h', service_tier: 'priority', safety_identifier: 'hashed-user-1',
    });
    const sent = (upstreamModel: string) => chatCodec.encodeRequest({ ...decoded, extra: undefined }, { upstreamModel, converted: true });
    const OPENAI_ONLY = { prompt_cache_key: 'conv-1', prompt_cache_retention: '24h', service_tier: 'priority', safety_identifier: 'hashed-user-1' };
    for (const model of ['gpt-4.1', 'o3', 'openai/gpt-5-mini', 'chatgpt-4o-latest']) expect(sent(model)).toMatchObject(OPENAI_ONLY);
    // Before: sent to every Chat upstream, and Groq answers 400 "property 'prompt_cache_key' is unsupported".
    for (const model of ['llama-3.3-70b-versatile', 'openai/gpt-oss-120b', 'deepseek-chat', 'gemini-2.5-flash']) {
      for (const key of Object.keys(OPENAI_ONLY)) expect(sent(model)).not.toHaveProperty(key);
    }
  });

  it("sends a Chat client's own service_tier, safety_identifier and verbosity once, as written", () => {
    const decoded = chatCodec.decodeRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }], service_tier: 'priority', safety_identifier: 's', verbosity: 'high' });
    const body = chatCodec.encodeRequest(decoded, { upstreamModel: 'gpt-5' });
    expect(body).toMatchObject({ service_tier: 'priority', safety_identifier: 's', verbosity: 'high' });
  });
});
