import { describe, expect, it } from 'vitest';
import { getCodec } from '../../src/formats/registry.ts';
import type { WireFormat } from '../../src/ir/types.ts';
import { describeRoutingEvents, type FallbackInfo, type RoutingInfo } from '../../src/routing/index.ts';
import { parseSse, type SseRecord } from '../../src/sse/index.ts';

const routing: RoutingInfo = { mode: 'auto', strategy: 'priority', requested: 'm1', resolved: 'p2/m1', attempts: 2 };
const fallback = { provider: 'p2', model: 'p2/m1', from: 'p1/m1', reason: 'provider_unavailable', discount: 0.1 };

/** Routing describes the events; the client format's codec puts them on its wire. */
function insertRoutingEvents(format: WireFormat, records: SseRecord[], info: RoutingInfo, used: FallbackInfo | undefined): SseRecord[] | undefined {
  return getCodec(format).insertRoutingEvents(records, describeRoutingEvents(info, used));
}

describe('routing events on each format\'s wire', () => {
  it('Chat: valid chat.completion.chunk records with choices [] and no error key, before the first chunk', () => {
    const records = parseSse('data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"up","choices":[]}\n\n');
    const out = insertRoutingEvents('chat', records, routing, fallback)!;
    expect(out.map((r) => r.event)).toEqual(['routing', 'fallback', undefined]);
    const first = JSON.parse(out[0].data) as Record<string, unknown>;
    expect(first).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 7,
      model: 'up',
      choices: [],
      routing: { mode: 'auto', strategy: 'priority', requested_model: 'm1', resolved_model: 'p2/m1', provider: 'p2', attempts: 2 },
    });
    expect(JSON.parse(out[1].data)).toMatchObject({ choices: [], fallback: { used: true, provider: 'p2', reason: 'provider_unavailable', discount: 0.1, from: 'p1/m1' } });
    expect(out.some((r) => 'error' in (JSON.parse(r.data) as object))).toBe(false);
  });

  it('Messages: typed objects before message_start; no fallback event when none was used', () => {
    const out = insertRoutingEvents('messages', parseSse('event: message_start\ndata: {"type":"message_start"}\n\n'), routing, undefined)!;
    expect(out.map((r) => r.event)).toEqual(['routing', 'message_start']);
    expect(JSON.parse(out[0].data)).toMatchObject({ type: 'routing', routing: { resolved_model: 'p2/m1' } });
  });

  it('Responses: right after response.created, and not before it arrives', () => {
    expect(insertRoutingEvents('responses', [], routing, fallback)).toBeUndefined();
    expect(insertRoutingEvents('responses', parseSse('event: response.in_progress\ndata: {}\n\n'), routing, fallback)).toBeUndefined();
    const records = parseSse('event: response.created\ndata: {"type":"response.created"}\n\nevent: response.in_progress\ndata: {}\n\n');
    const out = insertRoutingEvents('responses', records, routing, fallback)!;
    expect(out.map((r) => r.event)).toEqual(['response.created', 'routing', 'fallback', 'response.in_progress']);
    expect(JSON.parse(out[1].data)).toMatchObject({ routing: { resolved_model: 'p2/m1' } });
    expect(JSON.parse(out[2].data)).toMatchObject({ fallback: { provider: 'p2' } });
  });

  it("Responses: typed `keepalive`, the one event type openai 7's ResponseStream skips (it throws on a type it does not know)", () => {
    const records = parseSse('event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n');
    const out = insertRoutingEvents('responses', records, routing, fallback)!;
    expect(out.slice(1).map((r) => [r.event, (JSON.parse(r.data) as { type: string }).type])).toEqual([
      ['routing', 'keepalive'],
      ['fallback', 'keepalive'],
    ]);
  });

  it('Responses: the routing events carry the sequence_number of the response.created they follow (every event has one)', () => {
    const records = parseSse('event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\nevent: response.in_progress\ndata: {"type":"response.in_progress","sequence_number":1}\n\n');
    const out = insertRoutingEvents('responses', records, routing, fallback)!;
    expect(out.map((r) => (JSON.parse(r.data) as { sequence_number?: number }).sequence_number)).toEqual([0, 0, 0, 1]);
  });
});
