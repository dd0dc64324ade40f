import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/index.ts';
import { decodeResponsesRequest, responsesCodec } from '../../../src/formats/responses/index.ts';
import { carryOpaque, readCarried } from '../../../src/formats/shared/index.ts';
import { responsesPassthrough } from '../../../src/formats/responses/pass-through.ts';
import { readJsonFixture } from './helpers.ts';

function fails(body: unknown): GatewayError {
  try {
    responsesCodec.decodeRequest(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the request to be rejected');
}

const minimal = { model: 'm', input: 'hi' };

describe('responses decodeRequest', () => {
  it('takes a body without input when previous_response_id names the history, and refuses one without either', () => {
    expect(decodeResponsesRequest({ model: 'm', previous_response_id: 'resp_1' })).toMatchObject({ previousResponseId: 'resp_1', messages: [] });
    expect(responsesPassthrough.read!({ body: { model: 'm', previous_response_id: 'resp_1' }, raw: '' } as never).model).toBe('m');
    for (const body of [{ model: 'm' }, { model: 'm', previous_response_id: '' }]) {
      const error = (() => { try { decodeResponsesRequest(body); } catch (e) { return e; } })();
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).message).toBe("Missing required field 'input'.");
    }
  });

  it('decodes a string input as one user message', () => {
    expect(responsesCodec.decodeRequest(minimal)).toEqual({
      model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false,
    });
  });

  it('decodes every input item type and part type', () => {
    const request = responsesCodec.decodeRequest(readJsonFixture('request-all-items.json'));
    expect(request.system).toEqual([{ type: 'text', text: 'You are a weather bot.' }]);
    expect(request.messages.map((message) => message.role)).toEqual(['developer', 'user', 'user', 'assistant', 'tool', 'tool', 'assistant', 'user']);
    expect(request.messages[2].content).toEqual([
      { type: 'text', text: 'Here:' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'low' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
      { type: 'image', source: { kind: 'file_id', fileId: 'file-img1' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0x' }, filename: 'report.pdf' },
      { type: 'file', source: { kind: 'file_id', fileId: 'file-abc' } },
      { type: 'file', source: { kind: 'url', url: 'https://example.com/doc.pdf' } },
      { type: 'audio', data: 'UklGRg==', format: 'wav' },
    ]);
    // reasoning, the prior assistant message and both calls form one assistant turn
    expect(request.messages[3].content).toEqual([
      { type: 'reasoning', text: 'User wants weather.', itemId: 'rs_prev1', encrypted: 'gAAAAABprev-opaque==' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 'call_P1', name: 'get_weather', arguments: '{"city":"Paris"}', itemId: 'fc_prev1' },
      { type: 'tool_call', id: 'call_P2', name: 'get_time', arguments: '{}', itemId: 'fc_prev2' },
    ]);
    expect(request.messages[4].content).toEqual([{ type: 'tool_result', toolCallId: 'call_P1', content: '{"temp":21}' }]);
    expect(request.messages[5].content).toEqual([
      {
        type: 'tool_result',
        toolCallId: 'call_P2',
        content: [{ type: 'text', text: '12:00' }, { type: 'image', source: { kind: 'url', url: 'https://example.com/clock.png' } }],
      },
    ]);
  });

  it('decodes tools, tool_choice, reasoning, text.format and the scalar settings', () => {
    const request = responsesCodec.decodeRequest(readJsonFixture('request-all-items.json'));
    expect(request.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: true,
      },
      { name: 'get_time' },
    ]);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(request.parallelToolCalls).toBe(false);
    expect(request.reasoning).toEqual({ enabled: true, effort: 'high', summary: 'detailed' });
    expect(request.responseFormat).toEqual({ type: 'json_schema', name: 'weather', schema: { type: 'object', properties: { temp: { type: 'number' } } }, strict: true });
    expect(request).toMatchObject({ maxTokens: 2048, temperature: 0.5, topP: 0.9, metadata: { ticket: 'T-1' }, user: 'user-42', store: false, stream: true, promptCacheKey: 'weather-bot' });
    expect(request.extra).toEqual({
      hostedTools: [{ type: 'web_search', search_context_size: 'low' }],
      text: { verbosity: 'low' },
      include: ['reasoning.encrypted_content'],
      truncation: 'auto',
      service_tier: 'flex',
    });
  });

  it('keeps hosted and allowed_tools tool choices raw', () => {
    const hosted = responsesCodec.decodeRequest({ ...minimal, tool_choice: { type: 'web_search_preview' } });
    expect(hosted.toolChoice).toBeUndefined();
    expect(hosted.extra).toEqual({ tool_choice: { type: 'web_search_preview' } });
    const allowed = { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }] };
    const decoded = responsesCodec.decodeRequest({ ...minimal, tool_choice: allowed });
    expect(decoded.toolChoice).toBe('required');
    expect(decoded.extra).toEqual({ tool_choice: allowed });
    expect(responsesCodec.decodeRequest({ ...minimal, tool_choice: 'none' }).toolChoice).toBe('none');
  });

  it('decodes json_object / text formats and reasoning effort none', () => {
    expect(responsesCodec.decodeRequest({ ...minimal, text: { format: { type: 'json_object' } } }).responseFormat).toEqual({ type: 'json_object' });
    expect(responsesCodec.decodeRequest({ ...minimal, reasoning: { effort: 'none' } }).reasoning).toEqual({ enabled: false, effort: 'none' });
    expect(responsesCodec.decodeRequest({ ...minimal, reasoning: { generate_summary: 'concise' } }).reasoning).toEqual({ enabled: true, summary: 'concise' });
  });

  it('puts previous_response_id and store on the request', () => {
    const request = responsesCodec.decodeRequest({ ...minimal, previous_response_id: 'resp_1', store: true });
    expect(request.previousResponseId).toBe('resp_1');
    expect(request.store).toBe(true);
  });

  it('restores signatures and redacted thinking from our encrypted_content stash', () => {
    const request = responsesCodec.decodeRequest({
      model: 'm',
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs_a', summary: [{ type: 'summary_text', text: 'thinking' }], encrypted_content: carryOpaque({ signature: 'sig+/=' }) },
        { type: 'reasoning', id: 'rs_b', summary: [], encrypted_content: carryOpaque({ redacted: 'REDACTED' }) },
        { role: 'assistant', content: 'a' },
      ],
    });
    expect(request.messages[1].content).toEqual([
      { type: 'reasoning', text: 'thinking', itemId: 'rs_a', signature: 'sig+/=' },
      { type: 'reasoning', text: '', itemId: 'rs_b', redacted: true, data: 'REDACTED' },
      { type: 'text', text: 'a' },
    ]);
  });

  it('rejects a body that is not an object, or a missing model or input, with 400 bad_request', () => {
    for (const body of [null, [], 'text', { input: 'x' }, { model: 'm' }, { model: null, input: 'x' }]) {
      const error = fails(body);
      expect(error.code).toBe('bad_request');
      expect(error.status).toBe(400);
    }
  });

  it('rejects a required field of the wrong type with 422 naming it (spec §7)', () => {
    const cases: Array<[unknown, string]> = [
      [{ model: 5, input: 'x' }, 'model'],
      [{ model: 'm', input: 5 }, 'input'],
      [{ model: 'm', input: { role: 'user' } }, 'input'],
    ];
    for (const [body, field] of cases) {
      const error = fails(body);
      expect(error.code).toBe('validation_error');
      expect(error.status).toBe(422);
      expect(Object.keys(error.details?.fields as object)).toEqual([field]);
    }
  });

  it('rejects invalid values with 422 and the field path', () => {
    const cases: Array<[unknown, string]> = [
      [{ ...minimal, temperature: 3 }, 'temperature'],
      [{ ...minimal, max_output_tokens: -1 }, 'max_output_tokens'],
      [{ ...minimal, metadata: { a: 1 } }, 'metadata.a'],
      [{ ...minimal, reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
      [{ ...minimal, tool_choice: 'sometimes' }, 'tool_choice'],
      [{ ...minimal, tools: [{ type: 'function' }] }, 'tools[0].name'],
      [{ ...minimal, text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema'],
      [{ model: 'm', input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 'input[0].content[0].text'],
      [{ model: 'm', input: [{ role: 'user', content: [{ type: 'input_video', url: 'x' }] }] }, 'input[0].content[0].type'],
      [{ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 'input[0].content[0]'],
      [{ model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: { a: 1 } }] }, 'input[0].arguments'],
      [{ model: 'm', input: [{ type: 'reasoning', id: 'rs_1' }] }, 'input[0].summary'],
      [{ model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '' }, { type: 'function_call_output', call_id: 'c', output: 7 }] }, 'input[1].output'],
      [{ model: 'm', input: [42] }, 'input[0]'],
    ];
    for (const [body, path] of cases) {
      const error = fails(body);
      expect(error.code, path).toBe('validation_error');
      expect(error.status).toBe(422);
      expect(Object.keys((error.details as { fields: Record<string, string> }).fields), path).toContain(path);
    }
  });

  it('an unknown message role: kept out of the IR and named as unconvertible (passthrough forwards it; conversion 422s)', () => {
    const request = responsesCodec.decodeRequest({ model: 'm', input: [{ role: 'user', content: 'hi' }, { role: 'robot', content: 'x' }] });
    expect(request.messages).toHaveLength(1);
    expect(request.unconvertible).toEqual([{ field: 'input[1].role', message: "role 'robot' has no equivalent in another format" }]);
    expect(Object.keys((fails({ model: 'm', input: [{ role: 42, content: 'x' }] }).details as { fields: object }).fields)).toContain('input[0].role');
  });

  it('resolves item_reference through the resolver option, else lists it as unresolved (the pipeline decides)', () => {
    const body = { model: 'm', input: [{ type: 'item_reference', id: 'fc_stored' }, { type: 'function_call_output', call_id: 'call_S', output: 'ok' }] };
    expect(decodeResponsesRequest(body).unresolvedReferences).toEqual(['fc_stored']);
    const request = decodeResponsesRequest(body, {
      resolveItemReference: (id) => (id === 'fc_stored' ? { type: 'function_call', id: 'fc_stored', call_id: 'call_S', name: 'f', arguments: '{}' } : undefined),
    });
    expect(request.messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_S', name: 'f', arguments: '{}', itemId: 'fc_stored' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_S', content: 'ok' }] },
    ]);
  });

  it('drops an item_reference to an item already in the input', () => {
    const request = responsesCodec.decodeRequest({ model: 'm', input: [{ role: 'user', id: 'msg_u', content: 'x' }, { type: 'item_reference', id: 'msg_u' }] });
    expect(request.messages).toHaveLength(1);
  });

  it('skips hosted-tool items it cannot represent instead of failing', () => {
    const request = responsesCodec.decodeRequest({
      model: 'm',
      input: [{ role: 'user', content: 'x' }, { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search' } }, { role: 'assistant', content: 'y' }],
    });
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it("guesses a raw file's media type from its own extensions only: 'x.constructor' is no prototype key's media type", () => {
    for (const filename of ['x.constructor', 'x.toString', 'x.__proto__']) {
      const request = responsesCodec.decodeRequest({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', filename, file_data: 'JVBERi0x' }] }] });
      expect(request.messages[0].content[0]).toMatchObject({ type: 'file', source: { kind: 'base64', mediaType: 'application/pdf' } });
    }
  });
});
