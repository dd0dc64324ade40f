import { describe, expect, it } from 'vitest';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { toChatChunks } from '../../../plugins/mock/chat-wire.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { STREAM_IDS, encodeAll, joinArguments, joinText, parseEvents, partTypes, readFixture, runStream } from '../stream-helpers.ts';

const SPLITS = [0, 1, 3, 7, 64];

describe('chat stream decoder', () => {
  it.each(SPLITS)('decodes a text stream with include_usage (split every %i bytes)', (split) => {
    const parts = runStream(chatCodec, readFixture('chat/stream-text-usage.sse.txt'), split);
    expect(partTypes(parts)).toEqual(['start', 'text-start', 'text-delta', 'text-delta', 'text-delta', 'text-end', 'finish', 'usage', 'end']);
    expect(parts[0]).toEqual({ type: 'start', id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', model: 'gpt-4o-2024-08-06', created: 1741569952 });
    expect(joinText(parts, 'text-delta')).toBe('Héllo wörld 👋!');
    expect(parts.at(-2)).toEqual({ type: 'usage', usage: { inputTokens: 19, outputTokens: 10, cacheReadTokens: 4 } });
    expect(parts.find((p) => p.type === 'finish')).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it.each(SPLITS)('decodes parallel tool calls keyed by index (split every %i bytes)', (split) => {
    const parts = runStream(chatCodec, readFixture('chat/stream-parallel-tools.sse.txt'), split);
    const starts = parts.filter((p) => p.type === 'tool-call-start');
    expect(starts).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather' },
      { type: 'tool-call-start', index: 1, id: 'call_ABC123xyz', name: 'get_time' },
      { type: 'tool-call-start', index: 2, id: 'call_noargs', name: 'get_location' },
    ]);
    expect(joinArguments(parts, 0)).toBe('{"location": "Paris"}');
    expect(joinArguments(parts, 1)).toBe('{"tz":"CET"}');
    expect(joinArguments(parts, 2)).toBe('');
    // Each call is closed before the next starts; the last one before finish.
    const ends = parts.map((p, i) => (p.type === 'tool-call-end' ? i : -1)).filter((i) => i >= 0);
    expect(ends).toHaveLength(3);
    expect(partTypes(parts).slice(-4)).toEqual(['tool-call-end', 'finish', 'usage', 'end']);
    expect(parts.find((p) => p.type === 'finish')).toEqual({ type: 'finish', finishReason: 'tool_calls' });
  });

  it.each(SPLITS)('decodes parallel tool calls whose fragments interleave (GPT starts both in one chunk) as one call after another, none lost (split every %i bytes)', (split) => {
    const parts = runStream(chatCodec, readFixture('chat/stream-parallel-tools-interleaved.sse.txt'), split);
    expect(joinArguments(parts, 0)).toBe('{"location": "Paris"}');
    expect(joinArguments(parts, 1)).toBe('{"tz":"CET"}');
    // The IR's blocks are sequential: each call's deltas come between its start and its end, and a call ends before the next starts.
    let open: number | undefined;
    const seen: number[] = [];
    for (const part of parts) {
      if (part.type === 'tool-call-start') {
        expect(open).toBeUndefined();
        open = part.index;
        seen.push(part.index);
      } else if (part.type === 'tool-call-delta') expect(part.index).toBe(open);
      else if (part.type === 'tool-call-end') {
        expect(part.index).toBe(open);
        open = undefined;
      }
    }
    expect(seen).toEqual([0, 1]);
    expect(partTypes(parts).slice(-3)).toEqual(['finish', 'usage', 'end']);
  });

  it('decodes reasoning_content before content, with usage sent on the finish chunk', () => {
    const parts = runStream(chatCodec, readFixture('chat/stream-reasoning.sse.txt'), 5);
    expect(partTypes(parts)).toEqual([
      'start', 'reasoning-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-end', 'text-start', 'text-delta', 'text-end', 'finish', 'usage', 'end',
    ]);
    expect(joinText(parts, 'reasoning-delta')).toBe('The user asks for 2+2.');
    expect(parts.at(-2)).toEqual({ type: 'usage', usage: { inputTokens: 12, outputTokens: 30, reasoningTokens: 26 } });
  });

  it('decodes OpenRouter reasoning_details: text once (not twice), signature, redacted data', () => {
    const parts = runStream(chatCodec, readFixture('chat/stream-reasoning-details.sse.txt'), 11);
    expect(joinText(parts, 'reasoning-delta')).toBe('Compare the numbers.');
    expect(parts.filter((p) => p.type === 'reasoning-signature')).toEqual([{ type: 'reasoning-signature', signature: 'ErUBCkYIBRgCIkDsig==' }]);
    expect(partTypes(parts)).toEqual([
      'start', 'reasoning-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-signature', 'reasoning-end', 'redacted-reasoning',
      'text-start', 'text-delta', 'text-end', 'finish', 'usage', 'end',
    ]);
    expect(parts.find((p) => p.type === 'redacted-reasoning')).toEqual({ type: 'redacted-reasoning', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' });
  });

  // Regression: the mock (and LiteLLM-style upstreams) stream the text as plain reasoning_content
  // and then one signature-only detail; it used to open a second, empty thinking block.
  it.each(SPLITS)('attaches a signature-only reasoning_details item to the open reasoning block (split every %i bytes)', (split) => {
    const parts = runStream(chatCodec, readFixture('chat/stream-reasoning-signature-only.sse.txt'), split);
    expect(partTypes(parts)).toEqual([
      'start', 'reasoning-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-delta', 'reasoning-delta', 'reasoning-signature', 'reasoning-end',
      'text-start', 'text-delta', 'text-end', 'finish', 'usage', 'end',
    ]);
    expect(joinText(parts, 'reasoning-delta')).toBe('The user said: "hi". I will answer by echoing it.');
    expect(parts.find((p) => p.type === 'reasoning-signature')).toEqual({ type: 'reasoning-signature', signature: 'c2lnNjY1YTFjZWQ5YjI0ZTRkZDg4ZTM0ZjRk' });
  });

  it('decodes the mock plugin\'s own reasoning stream as one signed thinking block', () => {
    const reply = { reasoning: { text: 'Think first.', signature: 'U0lH' }, text: 'ok', toolCalls: [], finishReason: 'stop' as const, promptTokens: 1, completionTokens: 2, reasoningTokens: 1 };
    const sse = toChatChunks(reply, 'chatcmpl-m', 'mock', 1, false).map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
    const parts = runStream(chatCodec, sse, 3);
    expect(parts.filter((p) => p.type === 'reasoning-start')).toHaveLength(1);
    expect(joinText(parts, 'reasoning-delta')).toBe('Think first.');
    expect(parts.filter((p) => p.type === 'reasoning-signature')).toEqual([{ type: 'reasoning-signature', signature: 'U0lH' }]);
  });

  it('reads LiteLLM thinking_blocks deltas: text once (from reasoning_content), the signature, redacted blocks', () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-lite', object: 'chat.completion.chunk', created: 1, model: 'claude', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const sse = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Let me ', thinking_blocks: [{ type: 'thinking', thinking: 'Let me ', signature: null }] }),
      chunk({ reasoning_content: 'think.', thinking_blocks: [{ type: 'thinking', thinking: 'think.' }] }),
      chunk({ reasoning_content: '', thinking_blocks: [{ type: 'thinking', thinking: '', signature: 'EqoBLite==' }] }),
      chunk({ thinking_blocks: [{ type: 'redacted_thinking', data: 'RED' }] }),
      chunk({ content: 'Done.' }),
      chunk({}, 'stop'),
      'data: [DONE]\n\n',
    ].join('');
    const parts = runStream(chatCodec, sse, 6);
    expect(partTypes(parts)).toEqual([
      'start', 'reasoning-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-signature', 'reasoning-end', 'redacted-reasoning',
      'text-start', 'text-delta', 'text-end', 'finish', 'end',
    ]);
    expect(joinText(parts, 'reasoning-delta')).toBe('Let me think.');
    expect(parts.find((p) => p.type === 'reasoning-signature')).toEqual({ type: 'reasoning-signature', signature: 'EqoBLite==' });
    expect(parts.find((p) => p.type === 'redacted-reasoning')).toEqual({ type: 'redacted-reasoning', data: 'RED' });
  });

  it('groups reasoning_details by index: each index is its own block with its own signature', () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'gen-2', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const detail = (index: number, text: string, signature?: string) => ({ type: 'reasoning.text', text, ...(signature ? { signature } : {}), format: 'anthropic-claude-v1', index });
    const sse = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning: 'A1', reasoning_details: [detail(0, 'A1')] }),
      chunk({ reasoning: 'A2', reasoning_details: [detail(0, 'A2')] }),
      chunk({ reasoning_details: [detail(0, '', 'SIG_A')] }),
      chunk({ reasoning: 'B1', reasoning_details: [detail(1, 'B1')] }),
      chunk({ reasoning_details: [detail(1, '', 'SIG_B')] }),
      chunk({ content: 'done' }),
      chunk({}, 'stop'),
      'data: [DONE]\n\n',
    ].join('');
    const parts = runStream(chatCodec, sse, 4);
    expect(partTypes(parts)).toEqual([
      'start', 'reasoning-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-signature', 'reasoning-end',
      'reasoning-start', 'reasoning-delta', 'reasoning-signature', 'reasoning-end', 'text-start', 'text-delta', 'text-end', 'finish', 'end',
    ]);
    expect(parts.filter((p) => p.type === 'reasoning-signature').map((p) => (p as { signature: string }).signature)).toEqual(['SIG_A', 'SIG_B']);
  });

  it("reads the stop sequence on vLLM's finish chunk (stop_reason): a Messages client's message_delta names it", () => {
    const parts = runStream(chatCodec, readFixture('chat/stream-vllm-stop.sse.txt'));
    expect(parts.find((part) => part.type === 'finish')).toEqual({ type: 'finish', finishReason: 'stop', stopSequence: '</answer>' });
    const request = messagesCodec.decodeRequest({ model: 'm', max_tokens: 50, stream: true, stop_sequences: ['</answer>'], messages: [{ role: 'user', content: 'q' }] });
    const events = parseEvents(encodeAll(messagesCodec.createStreamEncoder(request, STREAM_IDS), parts));
    expect(events.find((event) => event.event === 'message_delta')?.data.delta).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: '</answer>' });
  });

  it('turns data: {"error":…} into an error part and stops', () => {
    const parts = runStream(chatCodec, readFixture('chat/stream-error.sse.txt'), 9);
    expect(parts.at(-1)).toEqual({
      type: 'error',
      error: { code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-4o in organization org-x on tokens per min.', status: 429, upstreamCode: 'rate_limit_exceeded' },
    });
    expect(partTypes(parts)).not.toContain('end');
  });

  it('reports a stream cut before finish as an error', () => {
    const text = readFixture('chat/stream-text-usage.sse.txt').split('\n\n').slice(0, 3).join('\n\n') + '\n\n';
    const parts = runStream(chatCodec, text);
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'provider_error', status: 502 } });
  });

  it('ends normally when finish arrived but usage and [DONE] did not', () => {
    const text = readFixture('chat/stream-text-usage.sse.txt').split('\n\n').slice(0, 5).join('\n\n') + '\n\n';
    const parts = runStream(chatCodec, text);
    expect(partTypes(parts).slice(-3)).toEqual(['text-end', 'finish', 'end']);
  });

  it('tolerates unknown fields, comments, junk records and calls without index', () => {
    const text = [
      ': keep-alive',
      'data: {"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{"role":"assistant","future":{"x":1}}}]}',
      'data: not json',
      'data: {"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{\\"x\\":1}"}}]}}]}',
      'data: {"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    const parts = runStream(chatCodec, text, 4);
    expect(parts.filter((p) => p.type === 'tool-call-start').map((p) => (p as { id: string }).id)).toEqual(['a', 'b']);
    expect(joinArguments(parts, 1)).toBe('{"x":1}');
    expect(parts.at(-1)).toEqual({ type: 'end' });
  });
});
