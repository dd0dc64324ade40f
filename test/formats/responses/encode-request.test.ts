import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { carryOpaque, readCarried } from '../../../src/formats/shared/index.ts';
import { readJsonFixture } from './helpers.ts';

const options = { upstreamModel: 'gpt-5-mini' };

const base: ChatRequest = { model: 'openai/gpt-5-mini', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false };

describe('responses encodeRequest', () => {
  it('encodes system as instructions and always sends stream', () => {
    const body = responsesCodec.encodeRequest({ ...base, system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }] }, options);
    expect(body).toEqual({
      model: 'gpt-5-mini',
      instructions: 'A\n\nB',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      stream: false,
    });
    expect(responsesCodec.encodeRequest({ ...base, stream: true }, options).stream).toBe(true);
  });

  it('encodes a tool loop from Chat/Messages: call_id = IR id, fc_ item id synthesised', () => {
    const body = responsesCodec.encodeRequest(
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_call', id: 'toolu_01A', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'tool_call', id: 'call_B', name: 'get_time', arguments: '{}', itemId: 'fc_orig' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', toolCallId: 'toolu_01A', content: '21C' },
              { type: 'tool_result', toolCallId: 'call_B', content: [{ type: 'text', text: 'noon' }], isError: false },
              { type: 'text', text: 'and tomorrow?' },
            ],
          },
          { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_C', content: 'x' }] },
        ],
      },
      options,
    );
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
      { type: 'function_call', id: 'fc_toolu_01A', call_id: 'toolu_01A', name: 'get_weather', arguments: '{"city":"Paris"}' },
      // the original fc_ id would be rejected by OpenAI without its reasoning item
      { type: 'function_call', id: 'fc_call_B', call_id: 'call_B', name: 'get_time', arguments: '{}' },
      { type: 'function_call_output', call_id: 'toolu_01A', output: '21C' },
      { type: 'function_call_output', call_id: 'call_B', output: [{ type: 'input_text', text: 'noon' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and tomorrow?' }] },
      { type: 'function_call_output', call_id: 'call_C', output: 'x' },
    ]);
  });

  it('encodes images, files and audio as input parts', () => {
    const body = responsesCodec.encodeRequest(
      {
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAA' }, detail: 'high' },
              { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
              { type: 'image', source: { kind: 'file_id', fileId: 'file-1' } },
              { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' } },
              { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'hello' }, title: 'notes.txt' },
              { type: 'file', source: { kind: 'url', url: 'https://x/doc.pdf' } },
              { type: 'file', source: { kind: 'file_id', fileId: 'file-2' }, filename: 'a.pdf' },
              { type: 'audio', data: 'UklG', format: 'mp3' },
            ],
          },
        ],
      },
      options,
    );
    expect((body.input as Array<{ content: unknown }>)[0].content).toEqual([
      { type: 'input_image', image_url: 'data:image/png;base64,AAA', detail: 'high' },
      { type: 'input_image', image_url: 'https://x/y.png' },
      { type: 'input_image', file_id: 'file-1' },
      { type: 'input_file', filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBE' },
      { type: 'input_file', filename: 'notes.txt', file_data: 'data:text/plain;base64,aGVsbG8=' },
      { type: 'input_file', file_url: 'https://x/doc.pdf' },
      { type: 'input_file', file_id: 'file-2', filename: 'a.pdf' },
      { type: 'input_audio', input_audio: { data: 'UklG', format: 'mp3' } },
    ]);
  });

  it('keeps OpenAI reasoning byte-exact and drops foreign reasoning by default', () => {
    const request: ChatRequest = {
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'own', itemId: 'rs_own', encrypted: 'gAAAA/x==' },
            { type: 'reasoning', text: 'claude thought', signature: 'EqQB/sig' },
            { type: 'reasoning', text: '', redacted: true, data: 'REDACTED' },
            { type: 'reasoning', text: 'plain deepseek text' },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    };
    const input = responsesCodec.encodeRequest(request, options).input as Array<Record<string, unknown>>;
    expect(input.slice(1)).toEqual([
      { type: 'reasoning', id: 'rs_own', summary: [{ type: 'summary_text', text: 'own' }], encrypted_content: 'gAAAA/x==' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'answer', annotations: [] }] },
    ]);
    const stashed = responsesCodec.encodeRequest(request, { ...options, foreignReasoning: 'stash' }).input as Array<Record<string, unknown>>;
    expect(stashed.filter((item) => item.type === 'reasoning')).toHaveLength(4);
    expect(readCarried(stashed[2].encrypted_content as string)).toEqual({ signature: 'EqQB/sig' });
    expect(readCarried(stashed[3].encrypted_content as string)).toEqual({ redacted: 'REDACTED' });
    expect(stashed[4]).toEqual({ type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [{ type: 'summary_text', text: 'plain deepseek text' }] });
  });

  it('keeps an original fc_ id only when the turn sends its reasoning item; sends OpenAI reasoning by id', () => {
    const turn = (reasoning: ChatRequest['messages'][number]['content']): Array<Record<string, unknown>> =>
      responsesCodec.encodeRequest(
        { ...base, messages: [{ role: 'assistant', content: [...reasoning, { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}', itemId: 'fc_0a1b' }] }] },
        options,
      ).input as Array<Record<string, unknown>>;
    expect(turn([{ type: 'reasoning', text: '', itemId: 'rs_0a1b' }])).toEqual([
      { type: 'reasoning', id: 'rs_0a1b', summary: [] },
      { type: 'function_call', id: 'fc_0a1b', call_id: 'call_1', name: 'f', arguments: '{}' },
    ]);
    expect(turn([{ type: 'reasoning', text: 'x', itemId: 'rs_gw0123' }])).toEqual([
      { type: 'function_call', id: 'fc_call_1', call_id: 'call_1', name: 'f', arguments: '{}' },
    ]);
    expect(turn([])).toEqual([{ type: 'function_call', id: 'fc_call_1', call_id: 'call_1', name: 'f', arguments: '{}' }]);
  });

  it('rejects n > 1 with 422: Responses answers with a single output, and a dropped n answers one choice where the client asked for several', () => {
    expect(() => responsesCodec.encodeRequest({ ...base, n: 2 }, options)).toThrow(expect.objectContaining({ code: 'validation_error', status: 422 }));
    expect(() => responsesCodec.encodeRequest({ ...base, n: 1 }, options)).not.toThrow();
  });

  it("carries a Chat client's store, service_tier, verbosity and safety_identifier to a Responses upstream (the pipeline strips Chat's extra on a conversion)", () => {
    const converted = (body: Record<string, unknown>) => {
      const request = chatCodec.decodeRequest({ model: 'oa/gpt-5', messages: [{ role: 'user', content: 'hi' }], ...body });
      return responsesCodec.encodeRequest({ ...request, extra: undefined }, options);
    };
    expect(converted({ store: true, service_tier: 'flex' })).toMatchObject({ store: true, service_tier: 'flex' });
    expect(converted({ store: false, service_tier: 'priority' })).toMatchObject({ store: false, service_tier: 'priority' });
    // Chat's top-level verbosity is Responses' text.verbosity, next to a converted response_format.
    expect(converted({ verbosity: 'low', safety_identifier: 'user-hash' })).toMatchObject({ text: { verbosity: 'low' }, safety_identifier: 'user-hash' });
    const schema = { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } };
    expect(converted({ verbosity: 'high', response_format: schema }).text).toEqual({ verbosity: 'high', format: { type: 'json_schema', name: 'a', schema: { type: 'object' } } });
    const plain = converted({});
    expect(plain).not.toHaveProperty('service_tier');
    expect(() => chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], store: 'yes' })).toThrow(expect.objectContaining({ status: 422 }));
  });

  it('maps settings: max_output_tokens, reasoning effort from effort or budget, text.format flat, tools', () => {
    const body = responsesCodec.encodeRequest(
      {
        ...base,
        maxTokens: 512,
        temperature: 0.2,
        topP: 0.8,
        stop: ['END'],
        seed: 1,
        user: 'u1',
        metadata: { k: 'v' },
        store: false,
        previousResponseId: 'resp_prev',
        parallelToolCalls: false,
        tools: [{ name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: 'string' } } } }, { name: 'g', strict: true }],
        toolChoice: { type: 'tool', name: 'f' },
        reasoning: { enabled: true, budgetTokens: 3000, summary: 'auto' },
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object', additionalProperties: false }, strict: true },
      },
      options,
    );
    expect(body).toMatchObject({
      max_output_tokens: 512,
      temperature: 0.2,
      top_p: 0.8,
      user: 'u1',
      metadata: { k: 'v' },
      store: false,
      parallel_tool_calls: false,
      tool_choice: { type: 'function', name: 'f' },
      reasoning: { effort: 'medium', summary: 'auto' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object', additionalProperties: false }, strict: true } },
      tools: [
        { type: 'function', name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: 'string' } } }, strict: false },
        { type: 'function', name: 'g', description: null, parameters: { type: 'object', properties: {} }, strict: true },
      ],
    });
    // no Responses slot (stop, seed) and server-side history already rebuilt (previous_response_id)
    expect(body).not.toHaveProperty('stop');
    expect(body).not.toHaveProperty('seed');
    expect(body).not.toHaveProperty('previous_response_id');
  });

  it('maps thinking budgets to the nearest effort (1024 low, 2048 medium, 4096+ high), as the Chat encoder does', () => {
    const effort = (budgetTokens: number): unknown =>
      (responsesCodec.encodeRequest({ ...base, reasoning: { enabled: true, budgetTokens } }, options).reasoning as { effort: string }).effort;
    expect([effort(1024), effort(2048), effort(4096), effort(32000)]).toEqual(['low', 'medium', 'high', 'high']);
    // The nearest effort, as for Chat upstreams: one budget means the same effort on both.
    for (const budget of [1500, 1537, 3000, 3100, 3500]) {
      const chat = chatCodec.encodeRequest({ ...base, reasoning: { enabled: true, budgetTokens: budget } }, options).reasoning_effort;
      expect(effort(budget), `budget ${budget}`).toBe(chat);
    }
    expect(responsesCodec.encodeRequest({ ...base, reasoning: { enabled: true, effort: 'minimal', budgetTokens: 9000 } }, options).reasoning).toEqual({ effort: 'minimal' });
    // Reasoning off: the least gpt-5-mini does; a model the gateway does not know gets nothing.
    expect(responsesCodec.encodeRequest({ ...base, reasoning: { enabled: false } }, options).reasoning).toEqual({ effort: 'minimal' });
    expect(responsesCodec.encodeRequest({ ...base, reasoning: { enabled: false } }, { upstreamModel: 'grok-4' })).not.toHaveProperty('reasoning');
  });

  it("fits the effort to the OpenAI model: reasoning off is its least, an effort it does not take the next stronger one", () => {
    const effort = (upstreamModel: string, reasoning: ChatRequest['reasoning']): unknown => {
      const responses = (responsesCodec.encodeRequest({ ...base, reasoning }, { upstreamModel }).reasoning as { effort?: string } | undefined)?.effort;
      expect(chatCodec.encodeRequest({ ...base, reasoning }, { upstreamModel }).reasoning_effort, upstreamModel).toBe(responses);
      return responses;
    };
    const off = { enabled: false };
    expect(['o3', 'o4-mini', 'gpt-5', 'gpt-5-nano-2025-08-07', 'gpt-5-codex', 'gpt-5.1', 'gpt-5.2', 'gpt-5.1-codex-max', 'gpt-5-pro'].map((m) => effort(m, off))).toEqual(['low', 'low', 'minimal', 'minimal', 'low', 'none', 'none', 'low', 'high']);
    // Dynamic thinking (Gemini's -1) leaves the model's default.
    expect(effort('gpt-5.1', { enabled: true })).toBeUndefined();
    expect(effort('o3', { enabled: false, effort: 'none' })).toBe('low');
    expect(effort('gpt-5.1', { enabled: true, effort: 'minimal' })).toBe('low');
    expect(effort('gpt-5', { enabled: true, effort: 'xhigh' })).toBe('high');
    expect(effort('gpt-5.2', { enabled: true, effort: 'max' })).toBe('xhigh');
    expect(effort('deepseek-reasoner', off)).toBeUndefined();
  });

  it('round-trips a Responses request: extra, hosted tools and raw tool_choice come back for a Responses upstream', () => {
    const fixture = readJsonFixture('request-all-items.json');
    const decoded = responsesCodec.decodeRequest(fixture);
    const body = responsesCodec.encodeRequest(decoded, options);
    expect(body).toMatchObject({
      include: ['reasoning.encrypted_content'],
      truncation: 'auto',
      prompt_cache_key: 'weather-bot',
      service_tier: 'flex',
      text: { verbosity: 'low', format: { type: 'json_schema', name: 'weather' } },
      instructions: 'You are a weather bot.',
    });
    expect((body.tools as unknown[]).at(-1)).toEqual({ type: 'web_search', search_context_size: 'low' });
    expect(body).not.toHaveProperty('hostedTools');
    const again = responsesCodec.decodeRequest({ ...body, model: 'm' });
    expect(again.messages).toEqual(decoded.messages);
    expect(again.extra).toEqual(decoded.extra);
  });

  it('drops hosted tools when the pipeline strips extra for a cross-format request', () => {
    const decoded = responsesCodec.decodeRequest({ model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } });
    const body = responsesCodec.encodeRequest({ ...decoded, extra: undefined, webSearch: undefined }, options);
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('writes the IR web search of another format as the web_search tool (location, allowed domains, context size)', () => {
    const body = responsesCodec.encodeRequest(
      { model: 'm', system: [], messages: [], stream: false, webSearch: { maxUses: 2, allowedDomains: ['example.com'], userLocation: { city: 'Paris', country: 'FR' }, contextSize: 'low' } },
      options,
    );
    expect(body.tools).toEqual([{ type: 'web_search', search_context_size: 'low', filters: { allowed_domains: ['example.com'] }, user_location: { type: 'approximate', city: 'Paris', country: 'FR' } }]);
  });

  it("fits a user over OpenAI's 64 characters (Claude Code's metadata.user_id) to its sha256: the same user, the same id", () => {
    const claudeCode = '{"device_id":"5d8d4086e6a441b5b0d94bf71d2dbb2edd9f4bab7340dc00909c0e7f3a1aa0da","account_uuid":"","session_id":"aeff2676-f5c0-4aa2-a786-8f09ad1e6f68"}';
    const sent = (user: string) => (responsesCodec.encodeRequest({ ...base, user }, options) as Record<string, unknown>).user as string;
    expect(sent(claudeCode)).toMatch(/^[0-9a-f]{64}$/);
    expect(sent(claudeCode)).toBe(sent(claudeCode));
    expect(sent(claudeCode.replace('aeff', 'beff'))).not.toBe(sent(claudeCode));
    expect(sent('user-42')).toBe('user-42');
    expect(sent('u'.repeat(64))).toBe('u'.repeat(64));
  });

  it("names an inline file of an unknown media type document.pdf, also one that is a prototype key's name", () => {
    for (const mediaType of ['toString', 'constructor', 'application/x-unknown']) {
      const body = responsesCodec.encodeRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'file', source: { kind: 'base64', mediaType, data: 'JVBERi0x' } }] }] }, options);
      expect((body.input as Array<{ content: Array<{ filename?: string }> }>)[0].content[0].filename).toBe('document.pdf');
    }
  });
});
