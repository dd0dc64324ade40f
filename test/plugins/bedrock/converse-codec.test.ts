// The bedrock-converse codec against recorded-shape Converse fixtures (test/fixtures/bedrock-converse,
// shapes of @aws-sdk/client-bedrock-runtime's Converse/ConverseStream models as they travel in
// REST-JSON: blobs base64, stream events padded with `p`): request with system, cachePoints,
// toolChoice, image, toolUse/toolResult and signed/redacted reasoning; a response with stopReason
// and cache usage; a stream with two toolUse blocks framed as event-stream at several cuts.
import { describe, expect, it } from 'vitest';
import { converseCodec, converseFormat } from '../../../plugins/bedrock/converse/index.ts';
import { GatewayError, type ContentPart, type StreamPart, type WireRecord } from '../../../src/plugin-kit/index.ts';
import { decodeStream, readStream } from '../../formats/format.case.ts';
import { readJsonFixture, STREAM_IDS } from '../../formats/stream-helpers.ts';

const fixture = (name: string): any => readJsonFixture(`bedrock-converse/${name}`);
const MODEL = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
const target = { model: MODEL, stream: false };

describe('bedrock-converse request codec (recorded shape)', () => {
  const body = fixture('request-tools-thinking.json');
  const request = converseCodec.decodeRequest(body, target);

  it('reads system with its cachePoint, the image, tools, toolChoice, sampling and thinking', () => {
    expect(request.model).toBe(MODEL);
    expect(request.system).toEqual([{ type: 'text', text: 'You are a weather assistant.', cacheControl: { type: 'ephemeral' } }]);
    const user = request.messages[0].content;
    expect(user[1]).toEqual({ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: body.messages[0].content[1].image.source.bytes }, cacheControl: { type: 'ephemeral' } });
    expect(request.tools).toEqual([{ name: 'get_weather', description: 'Current weather for a city.', parameters: body.toolConfig.tools[0].toolSpec.inputSchema.json, cacheControl: { type: 'ephemeral' } }]);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(request).toMatchObject({ maxTokens: 2048, temperature: 1, stop: ['\n\nHuman:'], reasoning: { enabled: true, budgetTokens: 1024 } });
  });

  it('reads signed and redacted reasoning, parallel toolUse and toolResult (json, text, error status)', () => {
    const assistant = request.messages[1].content;
    expect(assistant.slice(0, 2)).toEqual([
      { type: 'reasoning', text: 'The user wants two cities; call the tool twice.', signature: 'EqQBCkYIBRgCKkD3+sig/with/slashes+and+plus==' },
      { type: 'reasoning', text: '', redacted: true, data: 'RW5jcnlwdGVkIHJlYXNvbmluZw==' },
    ]);
    expect(assistant.slice(2).map((p) => p.type === 'tool_call' && [p.id, p.name, JSON.parse(p.arguments)])).toEqual([
      ['tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', 'get_weather', { city: 'Paris' }],
      ['tooluse_2xH0mVlVSe6Gmt4bJ0x9ZQ', 'get_weather', { city: 'Berlin', unit: 'celsius' }],
    ]);
    expect(request.messages[2].content).toEqual([
      { type: 'tool_result', toolCallId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', content: [{ type: 'text', text: '{"tempC":18}' }] },
      { type: 'tool_result', toolCallId: 'tooluse_2xH0mVlVSe6Gmt4bJ0x9ZQ', content: [{ type: 'text', text: 'city not found' }], isError: true },
    ]);
  });

  it('encodes the IR back to the same Converse shapes (signatures and redacted bytes as sent)', () => {
    const out = converseCodec.encodeRequest(request, { upstreamModel: MODEL }) as any;
    expect(out.system).toEqual(body.system);
    expect(out.messages[0].content).toEqual(body.messages[0].content);
    expect(out.messages[1].content).toEqual(body.messages[1].content);
    expect(out.messages[2].content[1]).toEqual(body.messages[2].content[1]);
    expect(out.toolConfig).toEqual(body.toolConfig);
    expect(out.inferenceConfig).toEqual(body.inferenceConfig);
    expect(out.additionalModelRequestFields).toEqual(body.additionalModelRequestFields);
    expect(out).not.toHaveProperty('modelId');
  });

  it('maps the other toolChoice shapes both ways', () => {
    for (const [wire, ir] of [[{ auto: {} }, 'auto'], [{ any: {} }, 'required']] as const) {
      const back = converseCodec.decodeRequest({ ...body, toolConfig: { ...body.toolConfig, toolChoice: wire } }, target);
      expect(back.toolChoice).toBe(ir);
      expect((converseCodec.encodeRequest(back, { upstreamModel: MODEL }) as any).toolConfig.toolChoice).toEqual(wire);
    }
  });

  // Claude on Converse verifies every reasoningText signature it is sent and wants a tool turn it
  // continues to start with signed reasoning (ValidationException otherwise): reasoning a client got
  // from another model, or sent back without its signature (a Chat client's reasoning_content, a
  // Gemini client that kept the thought text only), cannot go.
  it('leaves unsigned reasoning out for Claude, and thinking off when the tool loop it continues is then unsigned', () => {
    const unsigned = { type: 'reasoning', text: 'Let me think.' } as const;
    const loop = (first: ContentPart[]) => ({
      ...request,
      messages: [request.messages[0], { role: 'assistant' as const, content: [...first, ...request.messages[1].content.slice(2)] }, request.messages[2]],
    });
    const out = converseCodec.encodeRequest(loop([unsigned]), { upstreamModel: MODEL }) as any;
    expect(out.messages[1].content.map((b: object) => Object.keys(b)[0])).toEqual(['toolUse', 'toolUse']);
    expect(out.additionalModelRequestFields?.thinking).toBeUndefined();
    // Signed reasoning first: both go as they came, thinking stays on.
    const signed = converseCodec.encodeRequest(loop([{ ...unsigned, signature: 'EqQBsig' }, unsigned]), { upstreamModel: MODEL }) as any;
    expect(signed.messages[1].content.slice(0, 2)).toEqual([{ reasoningContent: { reasoningText: { text: 'Let me think.', signature: 'EqQBsig' } } }, { toolUse: expect.any(Object) }]);
    expect(signed.additionalModelRequestFields.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    // Another model on Converse (DeepSeek R1 and the like) gets its reasoning text back as before.
    const other = converseCodec.encodeRequest(loop([unsigned]), { upstreamModel: 'us.deepseek.r1-v1:0' }) as any;
    expect(other.messages[1].content[0]).toEqual({ reasoningContent: { reasoningText: { text: 'Let me think.' } } });
  });
});

describe('bedrock-converse response codec (recorded shape)', () => {
  const body = fixture('response-tool-use.json');

  it('reads content, stopReason and usage with cache reads and writes (IR input counts them in)', () => {
    const response = converseCodec.decodeResponse(body);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.usage).toEqual({ inputTokens: 27 + 1200 + 500, outputTokens: 112, cacheReadTokens: 1200, cacheWriteTokens: 500 });
    expect(response.content.map((p: ContentPart) => p.type)).toEqual(['reasoning', 'text', 'tool_call', 'tool_call']);
    expect(response.content[0]).toEqual({ type: 'reasoning', text: 'Two cities, two calls.', signature: 'ErcBCkgIBRABGAIiQMx+opaque/sig==' });
    const info = converseCodec.readPassthroughResponse(body);
    expect(info).toEqual({ usage: response.usage, finishReason: 'tool_use' });
  });

  // Bedrock's MessageStopEvent also says malformed_model_output and malformed_tool_use: the model's output (or a tool call) could not be read, not a finished answer.
  // No other format has such a finish (a Messages client read an empty end_turn: Claude Code exited 0 with nothing done), so it is the upstream's error.
  it('reads malformed_model_output and malformed_tool_use as the upstream\'s error naming it, whole and streamed, as Gemini MALFORMED_FUNCTION_CALL is, and writes an error back as malformed_model_output', () => {
    for (const reason of ['malformed_model_output', 'malformed_tool_use']) {
      expect(() => converseCodec.decodeResponse({ ...body, stopReason: reason }), reason).toThrow(expect.objectContaining({ code: 'provider_error', message: expect.stringContaining(reason) }));
      const decoder = converseCodec.createStreamDecoder();
      const parts = [
        { event: 'messageStart', data: JSON.stringify({ role: 'assistant' }) },
        { event: 'messageStop', data: JSON.stringify({ stopReason: reason }) },
        { event: 'metadata', data: JSON.stringify({ usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 } }) },
      ].flatMap((record) => decoder.push(record as any));
      parts.push(...decoder.end());
      expect(parts.map((part) => part.type), reason).toEqual(['start', 'error', 'usage', 'end']);
      expect(parts[1], reason).toMatchObject({ error: { code: 'provider_error', message: expect.stringContaining(reason) } });
    }
    const response = converseCodec.decodeResponse(body);
    expect((converseCodec.encodeResponse({ ...response, finishReason: 'error' }, converseCodec.decodeRequest(fixture('request-tools-thinking.json'), target)) as any).stopReason).toBe('malformed_model_output');
  });

  it('writes it back with Converse usage (inputTokens without the cache, totalTokens with it)', () => {
    const response = converseCodec.decodeResponse(body);
    const out = converseCodec.encodeResponse(response, converseCodec.decodeRequest(fixture('request-tools-thinking.json'), target)) as any;
    expect(out.stopReason).toBe('tool_use');
    expect(out.usage).toEqual(body.usage);
    expect(out.output.message).toEqual(body.output.message);
  });
});

/** The fixture's events as the format's wire records, framed as event-stream and read back cut every `split` bytes. */
function readFramed(events: { event: string; data: unknown }[], split: number): WireRecord[] {
  const writer = converseFormat.framing.createWriter();
  const records = events.map((e) => ({ event: e.event, data: JSON.stringify(e.data) }));
  const bytes = Buffer.concat([writer.write(records), writer.end()].map((piece) => Buffer.from(piece)));
  return readStream(converseFormat, bytes, split);
}

const decode = (records: WireRecord[]): StreamPart[] => decodeStream(converseFormat, records);

describe('bedrock-converse stream codec (recorded ConverseStream with two toolUse blocks)', () => {
  const events = fixture('stream-parallel-tools.json');

  for (const split of [1, 13, 4096]) {
    it(`decodes reasoning + signature, text and both tool calls in order, cut every ${split} bytes`, () => {
      const parts = decode(readFramed(events, split)).filter((p) => p.type !== 'start');
      expect(parts).toEqual([
        { type: 'reasoning-start' },
        { type: 'reasoning-delta', text: 'Two cities' },
        { type: 'reasoning-delta', text: ', two calls.' },
        { type: 'reasoning-signature', signature: 'ErcBCkgIBRABGAIiQMx+opaque/sig==' },
        { type: 'reasoning-end' },
        { type: 'text-start' },
        { type: 'text-delta', text: 'Checking both.' },
        { type: 'text-end' },
        { type: 'tool-call-start', index: 0, id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city": "Pa' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: 'ris"}' },
        { type: 'tool-call-end', index: 0 },
        { type: 'tool-call-start', index: 1, id: 'tooluse_2xH0mVlVSe6Gmt4bJ0x9ZQ', name: 'get_weather' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city": "Berlin"}' },
        { type: 'tool-call-end', index: 1 },
        { type: 'finish', finishReason: 'tool_calls' },
        { type: 'usage', usage: { inputTokens: 1727, outputTokens: 112, cacheReadTokens: 1200, cacheWriteTokens: 500 } },
        { type: 'end' },
      ]);
    });
  }

  it('re-encodes the decoded stream to the same events (padding aside) and taps usage as a passthrough', () => {
    const parts = decode(readFramed(events, 4096));
    const encoder = converseCodec.createStreamEncoder(converseCodec.decodeRequest(fixture('request-tools-thinking.json'), { model: MODEL, stream: true }), STREAM_IDS);
    const out = parts.flatMap((p) => encoder.encode(p)).map((r) => ({ event: r.event, data: JSON.parse(r.data) }));
    const strip = ({ p: _p, ...rest }: any) => rest;
    // Converse needs no start for text/reasoning blocks and an empty first toolUse delta carries nothing: both are dropped.
    const expected = events.filter((e: any) => e.data.delta?.toolUse?.input !== '').map((e: any) => ({ event: e.event, data: strip(e.data) }));
    expected.at(-1).data.metrics = { latencyMs: 0 };
    expect(out).toEqual(expected);
    const tap = converseCodec.createUsageTap();
    for (const record of readFramed(events, 4096)) tap.push(record);
    expect(tap.info).toEqual({ usage: { inputTokens: 1727, outputTokens: 112, cacheReadTokens: 1200, cacheWriteTokens: 500 }, finishReason: 'tool_use' });
    expect(converseFormat.terminal!(readFramed(events, 4096).at(-1)!)).toBe('complete');
  });

  // Real Bedrock's ModelStreamErrorException carries the model's status and message (originalStatusCode, originalMessage):
  // where the gateway knows the upstream's status. A timeout part-way is that exception in ConverseStream.
  it("ends a stream in ModelStreamErrorException with originalStatusCode and originalMessage when the upstream's status is known", () => {
    const timedOut = new GatewayError('provider_timeout', "The provider 'a' timed out: upstream 504", { details: { provider: 'a', upstream_status: 504 } });
    const record = converseCodec.encodeStreamError(timedOut, STREAM_IDS);
    expect(record.event).toBe('exception:modelStreamErrorException');
    expect(JSON.parse(record.data)).toMatchObject({ message: timedOut.message, originalStatusCode: 504, originalMessage: timedOut.message });
    // The gateway's own idle timeout: no upstream status, so neither field.
    const idle = JSON.parse(converseCodec.encodeStreamError(new GatewayError('provider_timeout', 'The provider went quiet.'), STREAM_IDS).data);
    expect(idle.message).toBe('The provider went quiet.');
    expect(idle).not.toHaveProperty('originalStatusCode');
    expect(idle).not.toHaveProperty('originalMessage');
  });

  // As InvokeModelWithResponseStream's framing (0a25950): a broken connection to the provider is the model's stream failing.
  it('ends a stream whose connection to the provider broke (provider_error) in ModelStreamErrorException, encoded or converted', () => {
    const cut = new GatewayError('provider_error', 'The connection to the provider failed.');
    expect(converseCodec.encodeStreamError(cut, STREAM_IDS).event).toBe('exception:modelStreamErrorException');
    const encoder = converseCodec.createStreamEncoder(converseCodec.decodeRequest({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }, { model: MODEL, stream: true }), STREAM_IDS);
    const records = encoder.encode({ type: 'error', error: { code: 'provider_error', status: 502, message: cut.message } } as StreamPart);
    expect(records.map((r) => r.event)).toEqual(['exception:modelStreamErrorException']);
    // Any other 5xx is still InternalServerException.
    expect(converseCodec.encodeStreamError(new GatewayError('internal_error', 'Oops.'), STREAM_IDS).event).toBe('exception:internalServerException');
  });

  // The IR's stream error carries the upstream's status (Gemini's error.code, Bedrock's own originalStatusCode): a converted
  // stream's ModelStreamErrorException says it; the other four exceptions have no such field in the SDK's model.
  it("a converted stream's error part with the upstream's status ends in ModelStreamErrorException with originalStatusCode and originalMessage", () => {
    const encoderOf = () => converseCodec.createStreamEncoder(converseCodec.decodeRequest({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }, { model: MODEL, stream: true }), STREAM_IDS);
    const [record] = encoderOf().encode({ type: 'error', error: { code: 'provider_error', status: 502, message: 'Internal error encountered.', upstreamStatus: 500 } });
    expect(record.event).toBe('exception:modelStreamErrorException');
    expect(JSON.parse(record.data)).toEqual({ message: 'Internal error encountered.', code: 'provider_error', originalStatusCode: 500, originalMessage: 'Internal error encountered.' });
    const [overloaded] = encoderOf().encode({ type: 'error', error: { code: 'provider_unavailable', status: 503, message: 'Overloaded.', upstreamStatus: 503 } });
    expect(overloaded.event).toBe('exception:serviceUnavailableException');
    expect(JSON.parse(overloaded.data)).toEqual({ message: 'Overloaded.', code: 'provider_unavailable' });
  });

  it("reads an upstream's ModelStreamErrorException's originalStatusCode into the IR (upstreamStatus); a status that is not one is dropped", () => {
    const decode = (payload: unknown) => converseCodec.createStreamDecoder().push({ event: 'exception:modelStreamErrorException', data: JSON.stringify(payload) });
    expect(decode({ message: 'The model failed.', originalStatusCode: 424, originalMessage: 'boom' })).toEqual([{ type: 'error', error: { code: 'provider_error', status: 502, message: 'The model failed.', upstreamStatus: 424 } }]);
    for (const originalStatusCode of [undefined, 'x', 42, 4240, 500.5]) expect((decode({ message: 'm', originalStatusCode })[0] as { error: object }).error).not.toHaveProperty('upstreamStatus');
  });
});
