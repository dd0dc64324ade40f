import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/ir/types.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { CARRY_PREFIX, carryOpaque, readCarried } from '../../../src/formats/shared/index.ts';
import { decodeSse } from './helpers.ts';
import { writeSse } from '../../../src/sse/index.ts';
import { STREAM_IDS } from '../stream-helpers.ts';

describe('Anthropic signatures carried in encrypted_content', () => {
  it('round-trips signatures and redacted payloads byte-exact', () => {
    const signature = 'EqQBCkYIBRgCKkDx+/==\u00e9';
    const stash = carryOpaque({ signature });
    expect(stash.startsWith(CARRY_PREFIX)).toBe(true);
    expect(stash.slice(CARRY_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(readCarried(stash)).toEqual({ signature });
    expect(readCarried(carryOpaque({ redacted: 'R' }))).toEqual({ redacted: 'R' });
  });

  it('reads values written before the one encoding (gwsig:) the same way', () => {
    const legacy = `gwsig:${Buffer.from(JSON.stringify({ signature: 'S+/=' })).toString('base64url')}`;
    expect(readCarried(legacy)).toEqual({ signature: 'S+/=' });
    const part = responsesCodec.decodeRequest({ model: 'm', input: [{ role: 'user', content: 'q' }, { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: legacy }] }).messages[1].content[0];
    expect(part).toEqual({ type: 'reasoning', text: '', itemId: 'rs_1', signature: 'S+/=' });
  });

  it('carries provider metadata (a Gemini thought signature) and gives it back on the part', () => {
    const metadata = { google: { thoughtSignature: 'CiQB0e2Kb+/==' } };
    const body = responsesCodec.encodeResponse(
      { id: 'r1', model: 'gemini', created: 1, content: [{ type: 'reasoning', text: 'plan', providerMetadata: metadata }, { type: 'text', text: 'ok' }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
      { model: 'm', system: [], messages: [], stream: false },
    );
    const item = (body.output as Array<Record<string, unknown>>)[0];
    expect(readCarried(item.encrypted_content as string)).toEqual({ metadata });
    const next = responsesCodec.decodeRequest({ model: 'm', input: [{ role: 'user', content: 'q' }, item] });
    expect(next.messages[1].content[0]).toMatchObject({ type: 'reasoning', text: 'plan', providerMetadata: metadata });
  });

  it('leaves foreign encrypted_content alone', () => {
    expect(readCarried('gAAAAABopaque==')).toBeUndefined();
    expect(readCarried('gwsig:not-json')).toBeUndefined();
    expect(readCarried(`gwsig:${Buffer.from('{"other":1}').toString('base64url')}`)).toBeUndefined();
  });

  it('keeps a signature through Messages → Responses client (stream) → next Responses request → IR', () => {
    // an Anthropic upstream's thinking block, streamed to a Responses client
    const request: ChatRequest = { model: 'm', system: [], messages: [], stream: true };
    const encoder = responsesCodec.createStreamEncoder(request, STREAM_IDS);
    const sse = [
      { type: 'start', id: 'msg_01', model: 'claude', created: 1 },
      { type: 'reasoning-start' },
      { type: 'reasoning-delta', text: 'hmm' },
      { type: 'reasoning-signature', signature: 'SIG+/==' },
      { type: 'reasoning-end' },
      { type: 'tool-call-start', index: 0, id: 'toolu_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } },
    ].map((part) => writeSse(encoder.encode(part as Parameters<typeof encoder.encode>[0]))).join('');
    // the client sends the output items back (stateless multi-turn)
    const completed = decodeSse(sse);
    expect(completed.find((part) => part.type === 'reasoning-signature')).toEqual({ type: 'reasoning-signature', signature: 'SIG+/==' });
    const output = JSON.parse(sse.split('event: response.completed\ndata: ')[1]).response.output as unknown[];
    const next = responsesCodec.decodeRequest({ model: 'm', input: [{ role: 'user', content: 'q' }, ...output, { type: 'function_call_output', call_id: 'toolu_1', output: 'ok' }] });
    expect(next.messages[1].content[0]).toMatchObject({ type: 'reasoning', text: 'hmm', signature: 'SIG+/==' });
    expect(next.messages[1].content[0]).not.toHaveProperty('encrypted');
  });

  it('keeps a signature through IR → Responses request (stash mode) → IR', () => {
    const request: ChatRequest = {
      model: 'm',
      system: [],
      stream: false,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 't', signature: 'S1' }, { type: 'reasoning', text: '', redacted: true, data: 'D1' }, { type: 'text', text: 'a' }] },
      ],
    };
    const body = responsesCodec.encodeRequest(request, { upstreamModel: 'x', foreignReasoning: 'stash' });
    const back = responsesCodec.decodeRequest({ ...body, model: 'm' });
    expect(back.messages[1].content).toEqual([
      { type: 'reasoning', text: 't', itemId: expect.stringMatching(/^rs_/), signature: 'S1' },
      { type: 'reasoning', text: '', itemId: expect.stringMatching(/^rs_/), redacted: true, data: 'D1' },
      { type: 'text', text: 'a' },
    ]);
  });
});
