import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError, validationError } from '../../../src/errors/index.ts';
import type { ChatResponse, StreamPart } from '../../../src/ir/types.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { writeSse } from '../../../src/sse/index.ts';
import { STREAM_IDS } from '../stream-helpers.ts';

const ids = { requestId: 'req_sdk', correlationId: 'cor_sdk' };

const turn: StreamPart[] = [
  { type: 'start', id: 'msg_01SDK', model: 'claude-sonnet-4', created: 1700000000, usage: { inputTokens: 40 } },
  { type: 'reasoning-start' },
  { type: 'reasoning-delta', text: 'The user wants ' },
  { type: 'reasoning-delta', text: 'weather.' },
  { type: 'reasoning-signature', signature: 'SIG==' },
  { type: 'reasoning-end' },
  { type: 'text-start' },
  { type: 'text-delta', text: 'Checking ' },
  { type: 'text-delta', text: 'both cities.' },
  { type: 'text-end' },
  { type: 'tool-call-start', index: 0, id: 'toolu_A', name: 'get_weather' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
  { type: 'tool-call-end', index: 0 },
  { type: 'tool-call-start', index: 1, id: 'toolu_B', name: 'get_weather' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":"Oslo"}' },
  { type: 'tool-call-end', index: 1 },
  { type: 'finish', finishReason: 'tool_calls' },
  { type: 'usage', usage: { inputTokens: 40, outputTokens: 25, cacheReadTokens: 8, reasoningTokens: 6 } },
  { type: 'end' },
];

const failing: StreamPart[] = [
  { type: 'start', id: 'chatcmpl-1', model: 'gpt-4o', created: 1 },
  { type: 'text-delta', text: 'Partial' },
  { type: 'error', error: { code: 'provider_error', message: 'Upstream connection reset', status: 502 } },
];

const nonStream: ChatResponse = {
  id: 'chatcmpl-xyz',
  model: 'gpt-4o',
  created: 1700000001,
  content: [{ type: 'text', text: 'Hello ' }, { type: 'text', text: 'there!' }, { type: 'tool_call', id: 'call_9', name: 'lookup', arguments: '{"q":"x"}' }],
  finishReason: 'tool_calls',
  usage: { inputTokens: 9, outputTokens: 4 },
};

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** A stand-in gateway: decodes the SDK's request with our codec and answers with our encoders. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let request;
  try {
    request = responsesCodec.decodeRequest(await readJson(req));
  } catch (error) {
    const gatewayError = error instanceof GatewayError ? error : new GatewayError('internal_error', 'boom');
    res.writeHead(gatewayError.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(responsesCodec.encodeError(gatewayError, ids)));
    return;
  }
  if (request.model === 'reject') {
    const error = validationError({ 'input[0].call_id': 'must be a string' });
    res.writeHead(error.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(responsesCodec.encodeError(error, ids)));
    return;
  }
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(responsesCodec.encodeResponse(nonStream, request)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const encoder = responsesCodec.createStreamEncoder(request, STREAM_IDS);
  for (const part of request.model === 'fail' ? failing : turn) {
    const text = writeSse(encoder.encode(part));
    if (text) res.write(text);
  }
  res.end();
}

let server: Server;
let client: OpenAI;

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x', maxRetries: 0 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the openai SDK accepts what the Responses encoders produce', () => {
  it('responses.stream().finalResponse() gives text, function calls, reasoning and usage', async () => {
    const stream = client.responses.stream({ model: 'any', input: 'Weather in Paris and Oslo?', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' }, strict: false }] });
    const textSnapshots: string[] = [];
    stream.on('response.output_text.delta', (event) => textSnapshots.push(event.snapshot));
    const final = await stream.finalResponse();
    expect(final.id).toBe('resp_msg_01SDK');
    expect(final.status).toBe('completed');
    const text = final.output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : [])).join('');
    expect(text).toBe('Checking both cities.');
    expect(textSnapshots).toEqual(['Checking ', 'Checking both cities.']);
    const calls = final.output.flatMap((item) => (item.type === 'function_call' ? [[item.call_id, item.name, item.arguments]] : []));
    expect(calls).toEqual([['toolu_A', 'get_weather', '{"city":"Paris"}'], ['toolu_B', 'get_weather', '{"city":"Oslo"}']]);
    const reasoning = final.output.find((item) => item.type === 'reasoning');
    expect(reasoning?.type === 'reasoning' && reasoning.summary).toEqual([{ type: 'summary_text', text: 'The user wants weather.' }]);
    expect(final.usage).toEqual({ input_tokens: 40, input_tokens_details: { cached_tokens: 8 }, output_tokens: 25, output_tokens_details: { reasoning_tokens: 6 }, total_tokens: 65 });
  });

  it('responses.create({ stream: true }) iterates every event in order', async () => {
    const stream = await client.responses.create({ model: 'any', input: 'x', stream: true });
    const seen: number[] = [];
    for await (const event of stream) seen.push(event.sequence_number);
    expect(seen).toEqual(seen.map((_, index) => index));
    expect(seen.length).toBeGreaterThan(20);
  });

  it('an error mid-stream rejects finalResponse() with an APIError carrying our message and code', async () => {
    const stream = client.responses.stream({ model: 'fail', input: 'x' });
    const error = await stream.finalResponse().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('Upstream connection reset');
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('provider_error');
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe('api_error');
  });

  it('responses.create (non-stream) reads our encodeResponse, output_text included', async () => {
    const response = await client.responses.create({ model: 'any', input: 'hi' });
    expect(response.output_text).toBe('Hello there!');
    expect(response.id).toBe('resp_chatcmpl-xyz');
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ call_id: 'call_9', name: 'lookup', arguments: '{"q":"x"}' });
    expect(response.usage?.total_tokens).toBe(13);
  });

  it('an error body becomes an APIError with status, code, type and param', async () => {
    const error = await client.responses.create({ model: 'reject', input: 'hi' }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(422);
    expect(apiError.code).toBe('validation_error');
    expect(apiError.type).toBe('invalid_request_error');
    expect(apiError.param).toBe('input[0].call_id');
    expect(apiError.message).toContain("Invalid parameter 'input[0].call_id'");
  });

  it('the SDK request body itself decodes with our codec (400 for a missing model)', async () => {
    const error = await client.responses.create({ input: 'hi' } as unknown as Parameters<typeof client.responses.create>[0]).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
