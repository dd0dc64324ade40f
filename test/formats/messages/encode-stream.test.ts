import { describe, expect, it } from 'vitest';
import type { ChatRequest, FinishReason, StreamPart, Usage } from '../../../src/ir/types.ts';
import { encodeMessagesStopReason } from '../../../src/formats/messages/map-finish-reason.ts';
import { encodeMessagesUsage } from '../../../src/formats/messages/map-usage.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { writeSse } from '../../../src/sse/index.ts';
import { readCarried } from '../../../src/formats/shared/index.ts';
import { encodeAll, encodePart, parseEvents, readFixture, translateStream, type SseEvent, STREAM_IDS } from '../stream-helpers.ts';
import { seededRandom } from '../../helpers/seeded-random.ts';

const request: ChatRequest = { model: 'm', system: [], messages: [], stream: true };

function names(events: SseEvent[]): string[] {
  return events.map((e) => (e.data.type === 'content_block_delta' ? `delta:${e.data.delta.type}` : e.event ?? '?'));
}

describe('messages stream encoder', () => {
  it('translates a Chat text stream: message_start, one text block, message_delta after the usage chunk', () => {
    const events = parseEvents(translateStream(chatCodec, messagesCodec, request, readFixture('chat/stream-text-usage.sse.txt'), 4));
    expect(names(events)).toEqual(['message_start', 'content_block_start', 'delta:text_delta', 'delta:text_delta', 'delta:text_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(events.every((e) => e.event === e.data.type)).toBe(true);
    expect(events[0].data.message).toMatchObject({ id: 'msg_chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 0 } });
    expect(events[1].data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    // Usage arrived after the finish chunk: message_delta carries it, input converted to exclude cache.
    expect(events.at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null },
      usage: { input_tokens: 15, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 4 },
    });
  });

  it("says the request's input estimate in message_start when the upstream tells usage only at the end, the upstream's count when it tells it at the start", () => {
    // 40 characters of text and a tool whose name, description and schema are 57 more: 97 characters, 25 tokens at 4 a token.
    const asked: ChatRequest = {
      ...request,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(40) }] }],
      tools: [{ name: 'lookup', description: 'y'.repeat(34), parameters: { type: 'object' } }],
    };
    const fromChat = parseEvents(translateStream(chatCodec, messagesCodec, asked, readFixture('chat/stream-text-usage.sse.txt')));
    expect(fromChat[0].data.message.usage).toMatchObject({ input_tokens: 25, output_tokens: 0 });
    expect(fromChat.at(-2)?.data.usage).toMatchObject({ input_tokens: 15, cache_read_input_tokens: 4 });
    const known = parseEvents(encodeAll(messagesCodec.createStreamEncoder(asked, STREAM_IDS), [{ type: 'start', id: 'x', model: 'm', created: 1, usage: { inputTokens: 7 } }, { type: 'end' }]));
    expect(known[0].data.message.usage).toMatchObject({ input_tokens: 7 });
  });

  it('gives message_start a msg_ id whatever the upstream id (and keeps a msg_ id)', () => {
    const id = (upstreamId: string) => parseEvents(encodePart(messagesCodec.createStreamEncoder(request, STREAM_IDS), { type: 'start', id: upstreamId, model: 'm', created: 1 }))[0].data.message.id;
    expect(id('resp_68af0001text')).toBe('msg_resp_68af0001text');
    expect(id('msg_01Keep')).toBe('msg_01Keep');
  });

  it('holds message_delta until usage is known', () => {
    const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
    encodePart(encoder, { type: 'start', id: 'c', model: 'm', created: 1 });
    encodePart(encoder, { type: 'text-delta', text: 'x' });
    expect(encodePart(encoder, { type: 'finish', finishReason: 'stop' })).not.toContain('message_delta');
    const afterUsage = encodePart(encoder, { type: 'usage', usage: { inputTokens: 3, outputTokens: 2 } });
    expect(afterUsage).toContain('event: message_delta');
    expect(afterUsage).not.toContain('message_stop');
    expect(encodePart(encoder, { type: 'end' })).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  });

  it('translates Chat parallel tool calls into tool_use blocks with sequential indices and no empty deltas', () => {
    const events = parseEvents(translateStream(chatCodec, messagesCodec, request, readFixture('chat/stream-parallel-tools.sse.txt'), 9));
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data);
    expect(starts).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: {} } },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_ABC123xyz', name: 'get_time', input: {} } },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_noargs', name: 'get_location', input: {} } },
    ]);
    const json = events.filter((e) => e.data.delta?.type === 'input_json_delta');
    expect(json.map((e) => [e.data.index, e.data.delta.partial_json])).toEqual([
      [0, '{"lo'],
      [0, 'cation": "Paris"}'],
      [1, '{"tz":"CET"}'],
    ]);
    expect(events.at(-2)?.data.delta.stop_reason).toBe('tool_use');
  });

  it('translates interleaved Chat parallel tool calls into whole tool_use blocks, one after another (no argument lost)', () => {
    const events = parseEvents(translateStream(chatCodec, messagesCodec, request, readFixture('chat/stream-parallel-tools-interleaved.sse.txt'), 11));
    expect(names(events)).toEqual([
      'message_start',
      'content_block_start', 'delta:input_json_delta', 'delta:input_json_delta', 'content_block_stop',
      'content_block_start', 'delta:input_json_delta', 'delta:input_json_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    const input = (index: number) => JSON.parse(events.filter((e) => e.data.index === index && e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join(''));
    expect(input(0)).toEqual({ location: 'Paris' });
    expect(input(1)).toEqual({ tz: 'CET' });
    expect(events[5].data.content_block).toEqual({ type: 'tool_use', id: 'call_time1', name: 'get_time', input: {} });
  });

  it('translates Chat reasoning_content into a thinking block before the text block', () => {
    const events = parseEvents(translateStream(chatCodec, messagesCodec, request, readFixture('chat/stream-reasoning.sse.txt'), 6));
    expect(names(events)).toEqual([
      'message_start',
      'content_block_start', 'delta:thinking_delta', 'delta:thinking_delta', 'delta:signature_delta', 'content_block_stop',
      'content_block_start', 'delta:text_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    expect(events[1].data.content_block).toEqual({ type: 'thinking', thinking: '', signature: '' });
    // The signature carries the model that wrote the reasoning, so it goes back to that model (DeepSeek wants it).
    expect(readCarried(events[4].data.delta.signature)).toEqual({ metadata: { chat: { model: 'deepseek-reasoner' } } });
  });

  it('translates OpenRouter reasoning_details: signature_delta before the stop, redacted_thinking as one block', () => {
    const events = parseEvents(translateStream(chatCodec, messagesCodec, request, readFixture('chat/stream-reasoning-details.sse.txt'), 8));
    expect(names(events)).toEqual([
      'message_start',
      'content_block_start', 'delta:thinking_delta', 'delta:thinking_delta', 'delta:signature_delta', 'content_block_stop',
      'content_block_start', 'content_block_stop',
      'content_block_start', 'delta:text_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    expect(events[4].data).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'ErUBCkYIBRgCIkDsig==' } });
    expect(events[6].data).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' } });
    expect(events[8].data.index).toBe(2);
  });

  it('re-encodes an Anthropic thinking stream with the same blocks and signature', () => {
    const events = parseEvents(translateStream(messagesCodec, messagesCodec, request, readFixture('messages/stream-thinking.sse.txt'), 1));
    const blocks = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block.type);
    expect(blocks).toEqual(['thinking', 'redacted_thinking', 'server_tool_use', 'text']);
    const signature = events.find((e) => e.data.delta?.type === 'signature_delta');
    expect(signature?.data.delta.signature).toBe('EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+ATjxoUOvwMUBpsnl/Q==');
    expect(events[0].data.message.usage).toEqual({ input_tokens: 30, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('encodes an error part as event: error and stops', () => {
    const parts: StreamPart[] = [
      { type: 'start', id: 'msg_1', model: 'm', created: 1 },
      { type: 'text-delta', text: 'x' },
      { type: 'error', error: { code: 'rate_limit_exceeded', message: 'slow down', status: 429 } },
      { type: 'end' },
    ];
    const out = encodeAll(messagesCodec.createStreamEncoder(request, STREAM_IDS), parts);
    const events = parseEvents(out);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down', code: 'rate_limit_exceeded', request_id: 'req_test' }, request_id: 'req_test' } });
    expect(out).not.toContain('message_stop');
  });

  it('emits message_start lazily and leaves no empty text block for an empty text run', () => {
    const out = encodeAll(messagesCodec.createStreamEncoder(request, STREAM_IDS), [{ type: 'text-start' }, { type: 'text-end' }, { type: 'finish', finishReason: 'length' }, { type: 'end' }]);
    const events = parseEvents(out);
    expect(names(events)).toEqual(['message_start', 'message_delta', 'message_stop']);
    expect(events[0].data.message.id).toMatch(/^msg_/);
    expect(events[1].data.delta.stop_reason).toBe('max_tokens');
  });

  it('writes text deltas exactly as the event object would serialize (the fast path for text)', () => {
    const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
    encoder.encode({ type: 'start', id: 'c', model: 'm', created: 1 });
    const records = encoder.encode({ type: 'text-delta', text: 'say "hi"\n' });
    expect(records.at(-1)).toEqual({
      event: 'content_block_delta',
      data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'say "hi"\n' } }),
    });
  });

  it('writes text deltas, block stops and message_stop exactly as their event objects would serialize, block after block', () => {
    const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
    const out = [{ type: 'start', id: 'c', model: 'm', created: 1 }, { type: 'text-delta', text: 'a' }, { type: 'text-end' }, { type: 'text-delta', text: 'b' }, { type: 'end' }].flatMap((part) => encoder.encode(part as StreamPart));
    const stops = out.filter((record) => record.event === 'content_block_stop' || record.event === 'message_stop');
    expect(out.filter((record) => record.event === 'content_block_delta')).toEqual([
      { event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } }) },
      { event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'b' } }) },
    ]);
    expect(stops).toEqual([
      { event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index: 0 }) },
      { event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index: 1 }) },
      { event: 'message_stop', data: JSON.stringify({ type: 'message_stop' }) },
    ]);
  });

  it('writes message_start and message_delta exactly as their event objects would serialize', () => {
    const usages: Array<Usage | undefined> = [
      undefined,
      { inputTokens: 12, outputTokens: 0 },
      { inputTokens: 100, outputTokens: 7, cacheReadTokens: 30, cacheWriteTokens: 20, cacheWrite1hTokens: 5, reasoningTokens: 3, webSearchRequests: 2 },
      { inputTokens: 100, outputTokens: 7, reasoningTokens: 3 },
      { inputTokens: 1e21, outputTokens: 0.5, cacheReadTokens: 1e-7 },
      { inputTokens: Number.NaN, outputTokens: Number.POSITIVE_INFINITY },
    ];
    const finishes: Array<{ finishReason: FinishReason; stopSequence?: string | null } | undefined> = [undefined, { finishReason: 'stop' }, { finishReason: 'length' }, { finishReason: 'tool_calls' }, { finishReason: 'stop', stopSequence: 'END "x"\n' }, { finishReason: 'pause', stopSequence: null }, { finishReason: 'content_filter' }];
    const starts = [
      { id: 'chatcmpl-1', model: 'gpt-x' },
      { id: 'msg_01Keep', model: 'a "quoted" \\ model 🦊\u2028' },
      { id: 'weird id/with:chars', model: '' },
    ];
    for (const start of starts) {
      for (const startUsage of usages) {
        for (const finish of finishes) {
          const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
          const parts: StreamPart[] = [{ type: 'start', ...start, created: 1, ...(startUsage ? { usage: startUsage } : {}) }, { type: 'text-delta', text: 'a' }];
          if (finish) parts.push({ type: 'finish', ...finish });
          parts.push({ type: 'usage', usage: { inputTokens: 40, outputTokens: 9, cacheReadTokens: 4 } }, { type: 'end' });
          const out = parts.flatMap((part) => encoder.encode(part));
          const messageStart = out.find((record) => record.event === 'message_start')!;
          const messageDelta = out.find((record) => record.event === 'message_delta')!;
          const message = JSON.parse(messageStart.data).message as Record<string, unknown>;
          expect(messageStart.data).toBe(
            JSON.stringify({
              type: 'message_start',
              message: { id: message.id, type: 'message', role: 'assistant', model: start.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...encodeMessagesUsage(startUsage ?? {}), output_tokens: 0 } },
            }),
          );
          expect(message.id).toBe(start.id.startsWith('msg_') ? start.id : `msg_${start.id.replace(/[^A-Za-z0-9_-]/g, '')}`);
          const reason = finish?.finishReason ?? 'stop';
          expect(messageDelta.data).toBe(
            JSON.stringify({
              type: 'message_delta',
              delta: { stop_reason: encodeMessagesStopReason(reason, finish?.stopSequence), stop_sequence: finish?.stopSequence ?? null, stop_details: reason === 'content_filter' ? { type: 'refusal', category: null, explanation: null } : null },
              usage: encodeMessagesUsage({ inputTokens: 40, outputTokens: 9, cacheReadTokens: 4 }),
            }),
          );
        }
      }
    }
  });

  it('writes tricky text deltas byte for byte as JSON.stringify would (quotes, backslashes, control characters, lone surrogates, emoji)', () => {
    const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('');
    const texts = [
      '"',
      '\\',
      '\\"\\u0041',
      controls,
      '\u007f\u0080\u00ff',
      '\u2028\u2029',
      '\ud800',
      'a\udfffb',
      '\udc00\ud800',
      '😀 \ud83d\ude00 👩‍👩‍👧',
      '</script><!--',
      'ünïcödé 中文 ',
    ];
    const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
    encoder.encode({ type: 'start', id: 'c', model: 'm', created: 1 });
    for (const [index, text] of texts.entries()) {
      // A new block each time, so the index in the template moves too.
      if (index > 0) encoder.encode({ type: 'text-end' });
      const records = encoder.encode({ type: 'text-delta', text });
      expect(records.at(-1)).toEqual({
        event: 'content_block_delta',
        data: JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
      });
      // Lone surrogates go out escaped (well-formed JSON.stringify), so the text reads back unchanged.
      expect(JSON.parse(records.at(-1)!.data).delta.text).toBe(text);
    }
  });

  it('writes random text deltas byte for byte as JSON.stringify would (quotes, backslashes, control characters, lone surrogates, non-ASCII; short and long)', () => {
    const pieces = ['a', ' fox', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '中', '\u2028', '\ud83d\ude00', '\ud83d', '\ude00', '}}', '"}}'];
    const next = seededRandom(7);
    const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
    encoder.encode({ type: 'start', id: 'c', model: 'm', created: 1 });
    for (let i = 0; i < 2000; i += 1) {
      const count = Math.floor(next() * (next() < 0.1 ? 300 : 8)) + 1;
      const plain = next() < 0.5;
      let text = '';
      for (let j = 0; j < count; j += 1) text += pieces[Math.floor(next() * (plain ? 2 : pieces.length))];
      const records = encoder.encode({ type: 'text-delta', text });
      expect(records.at(-1)!.data).toBe(JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
    }
  });

  it('frames every record as the SSE writer frames a plain record: no data it marks as one JSON line holds a line break', () => {
    // The writer frames a JsonLine without searching it for a line break; a plain copy is searched
    // (a data with a line break becomes several data: lines), so the two texts differ if one slipped in.
    const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
    const parts: StreamPart[] = [
      { type: 'start', id: 'chat\ncmpl\r1\u2028', model: 'a\nmodel\r\n\u2029 🦊', created: 1, usage: { inputTokens: 3, outputTokens: 0, cacheReadTokens: 1 } },
      { type: 'text-delta', text: 'line one\nline two\r\n\r' },
      { type: 'text-delta', text: '\u2028\u2029 ünï \ud800 "q" \\' },
      { type: 'text-end' },
      { type: 'reasoning-start' },
      { type: 'reasoning-delta', text: 'think\nmore' },
      { type: 'reasoning-signature', signature: 'sig\n' },
      { type: 'reasoning-end' },
      { type: 'tool-call-start', index: 0, id: 'call\n1', name: 'f\nn' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":\n1}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: 'stop', stopSequence: 'END\n' },
      { type: 'usage', usage: { inputTokens: 1e21, outputTokens: 0.5, cacheReadTokens: Number.NaN } },
      { type: 'end' },
    ];
    const records = parts.flatMap((part) => encoder.encode(part));
    expect(records.length).toBeGreaterThan(12);
    expect(writeSse(records)).toBe(writeSse(records.map((record) => ({ ...record }))));
    const failing = messagesCodec.createStreamEncoder(request, STREAM_IDS);
    const error = [...failing.encode({ type: 'text-delta', text: 'x' }), ...failing.encode({ type: 'error', error: { code: 'provider_error', message: 'cut\nshort', status: 502 } })];
    expect(writeSse(error)).toBe(writeSse(error.map((record) => ({ ...record }))));
  });
});
