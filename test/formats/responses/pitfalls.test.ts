import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/index.ts';
import { prependHistory, responsesCodec, responseToHistory } from '../../../src/formats/responses/index.ts';
import { decodeSse, joined, readFixture } from './helpers.ts';

function fieldsOf(body: unknown): Record<string, string> {
  try {
    responsesCodec.decodeRequest(body);
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'validation_error') return (error.details as { fields: Record<string, string> }).fields;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('wire-formats §4.9 pitfalls that concern Responses', () => {
  describe('pitfall 10: function_call_output.call_id is the call_id, not the fc_ id; previous_response_id needs stored state', () => {
    const call = { type: 'function_call', id: 'fc_abc', call_id: 'call_xyz', name: 'f', arguments: '{}' };

    it('rejects an output that references the fc_ item id with 422 on input[i].call_id', () => {
      const fields = fieldsOf({ model: 'm', input: [call, { type: 'function_call_output', call_id: 'fc_abc', output: 'x' }] });
      expect(fields['input[1].call_id']).toMatch(/item id of a function_call/);
    });

    it('rejects an output with no matching call when there is no server-side history', () => {
      const fields = fieldsOf({ model: 'm', input: [{ type: 'function_call_output', call_id: 'call_missing', output: 'x' }] });
      expect(fields['input[0].call_id']).toMatch(/No function_call/);
    });

    it('accepts it with previous_response_id: the call lives in the stored response', () => {
      const request = responsesCodec.decodeRequest({ model: 'm', previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'call_stored', output: 'x' }] });
      expect(request.previousResponseId).toBe('resp_1');
      expect(request.messages[0].content[0]).toEqual({ type: 'tool_result', toolCallId: 'call_stored', content: 'x' });
    });

    it('encodes results with the call_id of their call, never its item id', () => {
      const request = responsesCodec.decodeRequest({ model: 'm', input: [call, { type: 'function_call_output', call_id: 'call_xyz', output: 'x' }] });
      const input = responsesCodec.encodeRequest(request, { upstreamModel: 'u' }).input as Array<Record<string, unknown>>;
      expect(input[0]).toMatchObject({ type: 'function_call', call_id: 'call_xyz' });
      expect(input[0].id).toMatch(/^fc_/);
      expect(input[1]).toEqual({ type: 'function_call_output', call_id: 'call_xyz', output: 'x' });
    });
  });

  describe('pitfall 11: instructions are not inherited across previous_response_id', () => {
    it('history carries no instructions and the follow-up keeps only its own', () => {
      const first = responsesCodec.decodeRequest({ model: 'm', instructions: 'Talk like a pirate.', input: 'hi' });
      const history = responseToHistory(first, { id: 'r', model: 'm', created: 1, content: [{ type: 'text', text: 'Arr!' }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } });
      const withoutInstructions = prependHistory(responsesCodec.decodeRequest({ model: 'm', previous_response_id: 'r', input: 'again' }), history);
      expect(withoutInstructions.system).toEqual([]);
      expect(JSON.stringify(withoutInstructions)).not.toContain('pirate');
      const body = responsesCodec.encodeRequest(withoutInstructions, { upstreamModel: 'u' });
      expect(body).not.toHaveProperty('instructions');
    });
  });

  describe('pitfall 13: tolerate unknown SSE events and fields', () => {
    it('decodes the text of a stream full of unknown events, obfuscation fields, comments and bad JSON', () => {
      for (const seed of [1, 2, 3]) {
        const parts = decodeSse(readFixture('unknown-events.sse.txt'), seed);
        expect(parts.map((part) => part.type)).toEqual(['start', 'web-search-start', 'web-search-end', 'text-start', 'text-delta', 'text-citation', 'text-delta', 'text-end', 'finish', 'usage', 'end']);
        expect(joined(parts, 'text-delta')).toBe('Sunny today.');
      }
    });

    it('ignores records that are not JSON objects and events with no type', () => {
      const decoder = responsesCodec.createStreamDecoder();
      expect(decoder.push({ data: '[DONE]' })).toEqual([]);
      expect(decoder.push({ event: 'ping', data: '{}' })).toEqual([]);
      expect(decoder.push({ data: '"string"' })).toEqual([]);
    });
  });
});
