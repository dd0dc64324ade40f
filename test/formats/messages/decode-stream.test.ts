import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { joinArguments, joinText, partTypes, readFixture, runStream } from '../stream-helpers.ts';

const SPLITS = [0, 1, 2, 5, 13, 100];

describe('messages stream decoder', () => {
  it.each(SPLITS)('decodes a text stream with ping (split every %i bytes)', (split) => {
    const parts = runStream(messagesCodec, readFixture('messages/stream-text.sse.txt'), split);
    expect(partTypes(parts)).toEqual(['start', 'text-start', 'text-delta', 'text-delta', 'text-end', 'finish', 'usage', 'end']);
    expect(parts[0]).toMatchObject({
      type: 'start',
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      model: 'claude-sonnet-4-20250514',
      usage: { inputTokens: 2125, cacheReadTokens: 2000, cacheWriteTokens: 100 },
    });
    expect(joinText(parts, 'text-delta')).toBe('Héllo wörld 👋!');
    expect(parts.at(-2)).toEqual({ type: 'usage', usage: { inputTokens: 2125, outputTokens: 15, cacheReadTokens: 2000, cacheWriteTokens: 100 } });
  });

  it.each(SPLITS)('decodes tool_use with input_json_delta, skipping the empty first partial_json (split %i)', (split) => {
    const parts = runStream(messagesCodec, readFixture('messages/stream-tool-use.sse.txt'), split);
    expect(parts.filter((p) => p.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather' },
      { type: 'tool-call-start', index: 1, id: 'toolu_02NoArgs', name: 'get_location' },
    ]);
    expect(parts.filter((p) => p.type === 'tool-call-delta').every((p) => p.type === 'tool-call-delta' && p.argumentsDelta !== '')).toBe(true);
    expect(joinArguments(parts, 0)).toBe('{"location": "San Francisco, CA"}');
    expect(joinArguments(parts, 1)).toBe('');
    expect(parts.find((p) => p.type === 'finish')).toEqual({ type: 'finish', finishReason: 'tool_calls' });
  });

  it('numbers tool calls with its own counter, not the Anthropic block index', () => {
    const parts = runStream(messagesCodec, readFixture('messages/stream-tool-use.sse.txt'));
    // Anthropic block indices are 1 and 2 (text was 0); IR tool indices are 0 and 1.
    expect(parts.filter((p) => p.type === 'tool-call-end')).toEqual([
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-end', index: 1 },
    ]);
  });

  it.each(SPLITS)('decodes thinking with signature_delta, redacted_thinking, a web search call, and ignores unknown events (split %i)', (split) => {
    const parts = runStream(messagesCodec, readFixture('messages/stream-thinking.sse.txt'), split);
    expect(partTypes(parts)).toEqual([
      'start',
      'reasoning-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-signature', 'reasoning-end',
      'redacted-reasoning',
      'web-search-start',
      'text-start', 'text-delta', 'text-end',
      'finish', 'usage', 'end',
    ]);
    expect(parts.find((p) => p.type === 'web-search-start')).toEqual({ type: 'web-search-start', id: 'srvtoolu_01', query: 'x' });
    expect(joinText(parts, 'reasoning-delta')).toBe('Let me solve this step by step:\n\n1. 27 * 453 = 12231');
    expect(parts.find((p) => p.type === 'reasoning-signature')).toEqual({
      type: 'reasoning-signature',
      signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+ATjxoUOvwMUBpsnl/Q==',
    });
    expect(parts.find((p) => p.type === 'redacted-reasoning')).toEqual({ type: 'redacted-reasoning', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' });
    expect(parts.at(-2)).toEqual({ type: 'usage', usage: { inputTokens: 30, outputTokens: 120, reasoningTokens: 90 } });
  });

  it('turns event: error into an error part (overloaded → provider_unavailable 503)', () => {
    const parts = runStream(messagesCodec, readFixture('messages/stream-error.sse.txt'), 3);
    expect(parts.at(-1)).toEqual({ type: 'error', error: { code: 'provider_unavailable', message: 'Overloaded', status: 503 } });
    expect(joinText(parts, 'text-delta')).toBe('Partial');
    expect(partTypes(parts)).not.toContain('end');
  });

  // A Bedrock InvokeModel upstream's modelStreamErrorException (the bedrock plugin's unwrapping) and another gateway's
  // stream error name the upstream's status where the gateway's error envelope has it: the IR's upstreamStatus.
  it("reads the upstream's status an error event names in details.upstream_status (100-599 only)", () => {
    const failed = (details: unknown) =>
      runStream(messagesCodec, `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'The model stream failed.', details } })}\n\n`, 0).at(-1);
    expect(failed({ upstream_status: 500 })).toEqual({ type: 'error', error: { code: 'provider_error', message: 'The model stream failed.', status: 502, upstreamStatus: 500 } });
    for (const details of [undefined, { upstream_status: 42 }, { upstream_status: '500' }, 'x']) {
      expect(failed(details)).toEqual({ type: 'error', error: { code: 'provider_error', message: 'The model stream failed.', status: 502 } });
    }
  });

  it('reports a stream cut before message_delta as an error, after closing open blocks', () => {
    const text = readFixture('messages/stream-text.sse.txt').split('\n\n').slice(0, 4).join('\n\n') + '\n\n';
    const parts = runStream(messagesCodec, text);
    expect(partTypes(parts).slice(-2)).toEqual(['text-end', 'error']);
  });

  it('finishes without message_stop once message_delta was seen', () => {
    const text = readFixture('messages/stream-text.sse.txt').split('\n\n').slice(0, 7).join('\n\n') + '\n\n';
    const parts = runStream(messagesCodec, text);
    expect(partTypes(parts).slice(-3)).toEqual(['finish', 'usage', 'end']);
  });

  it('tolerates a missing usage, events without event: lines, and a tool_use sent whole', () => {
    const text = [
      'data: {"type":"message_start","message":{"id":"msg_x","model":"c","content":[]}}',
      'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_w","name":"f","input":{"a":1}}}',
      'data: {"type":"content_block_stop","index":0}',
      'data: {"type":"message_delta","delta":{"stop_reason":"tool_use"}}',
      'data: {"type":"message_stop"}',
      '',
    ].join('\n\n');
    const parts = runStream(messagesCodec, text, 6);
    expect(parts[0]).toEqual({ type: 'start', id: 'msg_x', model: 'c', created: expect.any(Number) });
    expect(joinArguments(parts, 0)).toBe('{"a":1}');
    expect(partTypes(parts).slice(-2)).toEqual(['finish', 'end']);
  });
});
