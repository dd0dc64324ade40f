import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { readJsonFixture } from '../stream-helpers.ts';

const opts = { upstreamModel: 'claude-sonnet-4-20250514' };

function base(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'x', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false, ...overrides };
}

describe('messages encodeRequest', () => {
  const fromChat = messagesCodec.encodeRequest(chatCodec.decodeRequest(readJsonFixture('chat/request-tools.json')), opts);
  const messages = fromChat.messages as Array<{ role: string; content: Array<Record<string, any>> }>;

  it('hoists system and developer text into a top-level system', () => {
    expect(fromChat.system).toEqual([
      { type: 'text', text: 'You are a weather bot.' },
      { type: 'text', text: 'Answer briefly.' },
    ]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('converts images (data URL → base64 source, http → url source, detail dropped) and files → documents', () => {
    expect(messages[0].content).toEqual([
      { type: 'text', text: 'Weather in Paris and the time in Berlin? See the map.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/map.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' }, title: 'forecast.pdf' },
    ]);
  });

  it('turns tool calls into tool_use with parsed input ("" → {}) and sanitised ids', () => {
    const [weather, time] = messages[1].content;
    expect(weather).toEqual({ type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } });
    expect(time.type).toBe('tool_use');
    expect(time.input).toEqual({});
    expect(time.id).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('merges N tool messages and the following user text into ONE user turn, tool_results first, same ids', () => {
    const [first, second, text] = messages[2].content;
    expect(first).toEqual({ type: 'tool_result', tool_use_id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', content: '18°C, cloudy' });
    expect(second).toEqual({ type: 'tool_result', tool_use_id: messages[1].content[1].id, content: '14:05' });
    expect(text).toEqual({ type: 'text', text: 'Thanks! Anything else?' });
  });

  it('maps parameters: max_tokens, clamped temperature, stop_sequences, tools, tool_choice any + no parallel, user', () => {
    expect(fromChat).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 900,
      temperature: 1,
      top_p: 0.9,
      stop_sequences: ['END'],
      stream: true,
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'user-42' },
    });
    expect(fromChat.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather',
        input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      },
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  it('uses {type:auto, disable_parallel_tool_use} when parallel calls are off and no choice was given', () => {
    const body = messagesCodec.encodeRequest(base({ tools: [{ name: 'f' }], parallelToolCalls: false }), opts);
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  });

  it('sends no tool_choice without tools', () => {
    const body = messagesCodec.encodeRequest(base({ toolChoice: 'required' }), opts);
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('maps reasoning_effort to a thinking budget and drops forced tool choice and sampling', () => {
    const body = messagesCodec.encodeRequest(base({ reasoning: { enabled: true, effort: 'medium' }, temperature: 0.2, topK: 5, tools: [{ name: 'f' }], toolChoice: 'required' }), opts);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_k');
    expect(body.tool_choice).toEqual({ type: 'auto' });
  });

  it('defaults max_tokens from options, else 4096', () => {
    expect(messagesCodec.encodeRequest(base(), opts).max_tokens).toBe(4096);
    expect(messagesCodec.encodeRequest(base(), { ...opts, defaultMaxTokens: 1000 }).max_tokens).toBe(1000);
  });

  it('rejects n > 1 with 422', () => {
    expect(() => messagesCodec.encodeRequest(base({ n: 2 }), opts)).toThrow(expect.objectContaining({ code: 'validation_error', status: 422 }));
    expect(() => messagesCodec.encodeRequest(base({ n: 1 }), opts)).not.toThrow();
  });

  it('drops free-form metadata (no Anthropic slot) and maps json_schema to output_config.format', () => {
    const body = messagesCodec.encodeRequest(base({ responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' } }, metadata: { a: 'b' } }), opts);
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: { type: 'object', additionalProperties: false } } });
    expect(body).not.toHaveProperty('metadata');
  });

  it("closes every object of a converted output schema, as Anthropic requires, and keeps what the schema says", () => {
    const open = {
      type: 'object',
      properties: {
        wind: { type: 'object', properties: { speed: { type: 'number' } } },
        days: { type: 'array', items: { type: ['object', 'null'], properties: { day: { type: 'string' } } } },
        pick: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'string' }] },
        tags: { type: 'object', additionalProperties: { type: 'object', properties: {} } },
        loose: { type: 'object', additionalProperties: true },
        ref: { $ref: '#/$defs/place' },
      },
      $defs: { place: { properties: { city: { type: 'string' } } } },
    };
    const body = messagesCodec.encodeRequest(base({ responseFormat: { type: 'json_schema', name: 'x', schema: open } }), opts);
    const schema = (body.output_config as { format: { schema: Record<string, any> } }).format.schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.wind.additionalProperties).toBe(false);
    expect(schema.properties.days.items.additionalProperties).toBe(false);
    expect(schema.properties.pick.anyOf).toEqual([{ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, { type: 'string' }]);
    expect(schema.properties.tags.additionalProperties).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(schema.properties.loose.additionalProperties).toBe(true);
    expect(schema.properties.ref).toEqual({ $ref: '#/$defs/place' });
    expect(schema.$defs.place.additionalProperties).toBe(false);
    // The request's own schema is left as it was.
    expect(open.properties.wind).not.toHaveProperty('additionalProperties');
  });

  it('keeps cache_control on system, tools, documents and tool results when re-encoding Messages', () => {
    const body = messagesCodec.encodeRequest(messagesCodec.decodeRequest(readJsonFixture('messages/request-tools.json')), opts);
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Answer briefly.' },
    ]);
    expect((body.tools as Array<Record<string, unknown>>)[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.service_tier).toBe('auto');
    const turns = body.messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(turns[0].content[3]).toMatchObject({ type: 'document', cache_control: { type: 'ephemeral' } });
    expect(turns[2].content[1]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01NoArgs',
      is_error: true,
      content: [
        { type: 'text', text: 'Missing location; here is the radar.' },
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      ],
    });
    expect(turns[0].content[5]).toEqual({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Plain notes.' }, title: 'notes' });
  });

  it('sends a string system when there is one plain block', () => {
    expect(messagesCodec.encodeRequest(base({ system: [{ type: 'text', text: 'S' }] }), opts).system).toBe('S');
  });

  it('turns a Chat URL file (file_url extension) into a url document and a text file into a text source', () => {
    const body = messagesCodec.encodeRequest(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'file', source: { kind: 'url', url: 'https://example.com/r.pdf' }, filename: 'r.pdf' },
              { type: 'file', source: { kind: 'base64', mediaType: 'text/plain', data: Buffer.from('héllo').toString('base64') } },
            ],
          },
        ],
      }),
      opts,
    );
    expect((body.messages as Array<{ content: unknown[] }>)[0].content).toEqual([
      { type: 'document', source: { type: 'url', url: 'https://example.com/r.pdf' }, title: 'r.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
    ]);
  });
});
