import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { readJsonFixture } from '../stream-helpers.ts';

function reject(body: unknown): GatewayError {
  try {
    messagesCodec.decodeRequest(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the request to be rejected');
}

describe('messages decodeRequest', () => {
  const request = messagesCodec.decodeRequest(readJsonFixture('messages/request-tools.json'));

  it('reads system text blocks with cache_control', () => {
    expect(request.system).toEqual([
      { type: 'text', text: 'You are a weather bot.', cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: 'Answer briefly.' },
    ]);
  });

  it('reads images and documents (base64, url, text) into IR sources', () => {
    expect(request.messages[0].content).toEqual([
      { type: 'text', text: 'Weather in Paris? See the map and the report.' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/map.jpg' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0xLjQ=' }, title: 'forecast.pdf', cacheControl: { type: 'ephemeral' } },
      { type: 'file', source: { kind: 'url', url: 'https://example.com/report.pdf' } },
      { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'Plain notes.' }, title: 'notes' },
    ]);
  });

  it('reads thinking (with signature), redacted thinking, text and tool_use in order', () => {
    expect(request.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'I should call the tool.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+ATjxoUOvwMUBpsnl/Q==' },
        { type: 'reasoning', text: '', redacted: true, data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"location":"Paris"}' },
        { type: 'tool_call', id: 'toolu_01NoArgs', name: 'get_weather', arguments: '{}' },
      ],
    });
  });

  it('splits a user turn into one IR tool message per tool_result, then the text', () => {
    expect(request.messages.slice(2)).toEqual([
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'toolu_01A09q90qw90lq917835lq9', content: '18°C, cloudy' }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: 'toolu_01NoArgs',
            isError: true,
            content: [
              { type: 'text', text: 'Missing location; here is the radar.' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' } },
            ],
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
    ]);
  });

  it('maps parameters, client tools (server tools kept raw in extra), tool_choice and thinking', () => {
    expect(request).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      maxTokens: 2048,
      stream: true,
      stop: ['END'],
      user: 'user-42',
      toolChoice: 'auto',
      parallelToolCalls: false,
      reasoning: { enabled: true, budgetTokens: 1024, summary: 'auto' },
    });
    expect(request.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather',
        parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        cacheControl: { type: 'ephemeral' },
      },
    ]);
    expect(request.extra).toEqual({ service_tier: 'auto', serverTools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] });
  });

  it('reads a string system, string content and tool_choice any/tool/none', () => {
    const decode = (choice: unknown) => messagesCodec.decodeRequest({ model: 'm', max_tokens: 1, system: 'S', messages: [{ role: 'user', content: 'hi' }], tool_choice: choice });
    expect(decode({ type: 'any' }).toolChoice).toBe('required');
    expect(decode({ type: 'tool', name: 'f' }).toolChoice).toEqual({ type: 'tool', name: 'f' });
    expect(decode({ type: 'none' }).toolChoice).toBe('none');
    expect(decode(undefined).system).toEqual([{ type: 'text', text: 'S' }]);
    expect(decode(undefined).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('reads adaptive thinking with output_config effort and a json_schema format', () => {
    const decoded = messagesCodec.decodeRequest({
      model: 'm',
      max_tokens: 1,
      messages: [],
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    expect(decoded.reasoning).toEqual({ enabled: true, effort: 'high', summary: 'auto' });
    // Anthropic's structured output is constrained: strict where the upstream can be.
    expect(decoded.responseFormat).toEqual({ type: 'json_schema', schema: { type: 'object' }, strict: true });
  });

  it("asks for the reasoning's text (an OpenAI summary) when thinking is shown, not with display omitted or thinking off", () => {
    const reasoning = (thinking: unknown) => messagesCodec.decodeRequest({ model: 'm', max_tokens: 4096, messages: [], thinking }).reasoning;
    expect(reasoning({ type: 'enabled', budget_tokens: 2048 })).toEqual({ enabled: true, budgetTokens: 2048, summary: 'auto' });
    expect(reasoning({ type: 'enabled', budget_tokens: 2048, display: 'summarized' })?.summary).toBe('auto');
    expect(reasoning({ type: 'adaptive', display: 'omitted' })).toEqual({ enabled: true });
    expect(reasoning({ type: 'disabled' })).toEqual({ enabled: false });
  });

  it('keeps a system message inside messages in its place (Claude Code, beta mid-conversation-system)', () => {
    const decoded = messagesCodec.decodeRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'assistant', content: 'ok' },
        { role: 'system', content: 'Now in French.' },
      ],
    });
    expect(decoded.messages.map((m) => m.role)).toEqual(['user', 'system', 'assistant', 'system']);
    expect(decoded.messages[3].content).toEqual([{ type: 'text', text: 'Now in French.' }]);
  });

  it('skips unknown block types instead of failing', () => {
    const decoded = messagesCodec.decodeRequest({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'search_result', source: 'x' }, { type: 'text', text: 'hi' }] }],
    });
    expect(decoded.messages[0].content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  // Tool search: a tool_result naming tools by tool_reference (Claude Code's ToolSearch) is, on Anthropic's side,
  // the named tools' full definitions. Another format has no such block: it was dropped, so the model saw an empty result.
  it('reads a tool_reference in a tool_result as the named tool definition, in a <functions> block', () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const decoded = messagesCodec.decodeRequest({
      model: 'm',
      tools: [
        { name: 'ToolSearch', description: 'Finds deferred tools', input_schema: { type: 'object', properties: { query: { type: 'string' } } } },
        { name: 'NotebookEdit', description: 'Edits a notebook cell', input_schema: schema, defer_loading: true },
      ],
      messages: [
        { role: 'user', content: 'Edit the notebook' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:NotebookEdit,Gone' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'NotebookEdit' }, { type: 'tool_reference', tool_name: 'Gone' }] }] },
      ],
    });
    const definition = JSON.stringify({ description: 'Edits a notebook cell', name: 'NotebookEdit', parameters: schema });
    expect(decoded.messages[2]).toEqual({
      role: 'tool',
      content: [{ type: 'tool_result', toolCallId: 'toolu_1', content: [{ type: 'text', text: `<functions>\n<function>${definition}</function>\n<function>{"name":"Gone"}</function>\n</functions>` }] }],
    });
  });

  describe('rejects', () => {
    it('a missing model or messages with 400', () => {
      expect(reject({ messages: [] })).toMatchObject({ code: 'bad_request', status: 400 });
      expect(reject({ model: 'm' })).toMatchObject({ code: 'bad_request', status: 400 });
      expect(reject([1, 2])).toMatchObject({ code: 'bad_request' });
    });

    it('a required field of the wrong type with 422 naming it (spec §7)', () => {
      expect(reject({ model: 'm', max_tokens: 5, messages: 'text' })).toMatchObject({ code: 'validation_error', status: 422, details: { fields: { messages: 'must be an array' } } });
    });

    it('an unknown role inside messages: kept out of the IR and named as unconvertible (passthrough forwards it; conversion 422s)', () => {
      const request = messagesCodec.decodeRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }, { role: 'tool', content: 'x' }] });
      expect(request.messages).toHaveLength(1);
      expect(request.unconvertible).toEqual([{ field: 'messages[1].role', message: "role 'tool' has no equivalent in another format" }]);
      expect(reject({ model: 'm', messages: [{ role: 42, content: 'x' }] }).details?.fields).toHaveProperty(['messages[0].role']);
    });

    it('invalid values with 422 naming each field', () => {
      const error = reject({
        model: 'm',
        max_tokens: -1,
        temperature: 1.5,
        thinking: { type: 'enabled' },
        messages: [{ role: 'user', content: [{ type: 'tool_result' }, { type: 'image', source: { type: 'ftp' } }] }],
      });
      expect(Object.keys(error.details?.fields as object).sort()).toEqual([
        'max_tokens',
        'messages[0].content[0].tool_use_id',
        'messages[0].content[1].source.type',
        'temperature',
        'thinking.budget_tokens',
      ]);
    });
  });
});
