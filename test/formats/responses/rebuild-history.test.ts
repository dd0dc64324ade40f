import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../../src/ir/types.ts';
import { prependHistory, responsesCodec, responseToHistory } from '../../../src/formats/responses/index.ts';

const storedRequest = responsesCodec.decodeRequest({
  model: 'm',
  instructions: 'Old instructions.',
  input: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
});
const storedResponse: ChatResponse = {
  id: 'resp_1',
  model: 'm',
  created: 1,
  content: [
    { type: 'reasoning', text: 'need tool', itemId: 'rs_1', encrypted: 'gAAAA' },
    { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', itemId: 'fc_1' },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 1, outputTokens: 1 },
};

describe('responses history for previous_response_id', () => {
  it('returns the stored messages plus the output as one assistant message, without instructions', () => {
    const history = responseToHistory(storedRequest, storedResponse);
    expect(history).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: storedResponse.content },
    ]);
    expect(JSON.stringify(history)).not.toContain('Old instructions.');
  });

  it('adds no assistant message for an empty output', () => {
    expect(responseToHistory(storedRequest, { ...storedResponse, content: [] })).toEqual(storedRequest.messages);
  });

  it('chains: a follow-up with a tool result gets the history in front and keeps its own instructions', () => {
    const followUp = responsesCodec.decodeRequest({
      model: 'm',
      previous_response_id: 'resp_1',
      instructions: 'New instructions.',
      input: [{ type: 'function_call_output', call_id: 'call_1', output: '21C' }],
    });
    const rebuilt = prependHistory(followUp, responseToHistory(storedRequest, storedResponse));
    // The id stays for the client's answer (it names it), never for the upstream.
    expect(rebuilt.previousResponseId).toBe('resp_1');
    expect(rebuilt.system).toEqual([{ type: 'text', text: 'New instructions.' }]);
    expect(rebuilt.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    const body = responsesCodec.encodeRequest(rebuilt, { upstreamModel: 'gpt-5' });
    expect(body.instructions).toBe('New instructions.');
    expect(body).not.toHaveProperty('previous_response_id');
    expect((body.input as Array<{ type: string }>).map((item) => item.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call_output']);
  });

  it('a second hop only needs the stored (rebuilt) request of the previous turn', () => {
    const turn2Request = prependHistory(
      responsesCodec.decodeRequest({ model: 'm', previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'call_1', output: '21C' }] }),
      responseToHistory(storedRequest, storedResponse),
    );
    const turn2Response: ChatResponse = { ...storedResponse, id: 'resp_2', content: [{ type: 'text', text: 'It is 21C.' }], finishReason: 'stop' };
    const history = responseToHistory(turn2Request, turn2Response);
    expect(history.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
