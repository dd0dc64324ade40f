import { describe, expect, it } from 'vitest';
import { encodeResponsesResponse, storedItemId, storedItemPlace } from '../../src/formats/responses/index.ts';
import { decodeInbound } from '../../src/pipeline/run-chat.ts';
import { resolveStoredReferences } from '../../src/exchange/resolve-references.ts';
import type { ChatRequest, ChatResponse } from '../../src/ir/types.ts';
import type { ChatExchange } from '../../src/pipeline/types.ts';
import type { AuthContext } from '../../src/accounts/types.ts';
import type { ServerDeps } from '../../src/server/types.ts';

const RESP = `resp_${'ab'.repeat(24)}`;
const request = { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false } as unknown as ChatRequest;
const answer: ChatResponse = {
  id: RESP,
  model: 'm',
  created: 1,
  finishReason: 'tool_calls',
  usage: { inputTokens: 1, outputTokens: 1 },
  content: [
    { type: 'reasoning', text: 'think', signature: 'sig-1' },
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_call', id: 'toolu_1', name: 'lookup', arguments: '{"city":"Paris"}' },
  ],
} as ChatResponse;
const stored = encodeResponsesResponse(answer, request) as { output: Array<{ id: string; type: string }> };

function depsWith(owner: string, inference = 100 * 1024 * 1024, response: unknown = stored): ServerDeps {
  const get = async (accountId: string, id: string) => (accountId === owner && id === RESP ? { response } : undefined);
  return { store: { responses: { get } }, config: { server: { bodyLimits: { inference } } } } as unknown as ServerDeps;
}
const auth = (id: string) => ({ account: { id } }) as unknown as AuthContext;

function exchangeOf(input: unknown[]): ChatExchange {
  const body = { model: 'm', input };
  return { format: 'responses', body, raw: JSON.stringify(body) } as unknown as ChatExchange;
}

describe('item_reference to a response the gateway stored', () => {
  it('names the items of a minted response after it, and reads the place back', () => {
    expect(stored.output.map((item) => item.id)).toEqual([`rs_gw${'ab'.repeat(24)}o0`, `msg_gw${'ab'.repeat(24)}o1`, `fc_gw${'ab'.repeat(24)}o2`]);
    expect(storedItemPlace(stored.output[2]!.id)).toEqual({ responseId: RESP, index: 2 });
    expect(storedItemId('rs', 'resp_upstream', 0)).toBeUndefined();
    expect(storedItemPlace('rs_0123')).toBeUndefined();
  });

  const refs = () => [
    { role: 'user', content: 'hi' },
    ...stored.output.map((item) => ({ type: 'item_reference', id: item.id })),
    { type: 'function_call_output', call_id: 'toolu_1', output: '18°C' },
  ];

  it("resolves the caller's own references into the stored items (reasoning signature included)", async () => {
    const exchange = exchangeOf(refs());
    const resolved = await resolveStoredReferences(depsWith('acct'), exchange, decodeInbound(exchange), auth('acct'));
    expect(resolved.unresolvedReferences).toBeUndefined();
    const assistant = resolved.messages.find((m) => m.role === 'assistant')!;
    expect(assistant.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool_call']);
    expect(assistant.content[0]).toMatchObject({ signature: 'sig-1' });
    expect(JSON.parse(exchange.raw).input[1].type).toBe('reasoning');
  });

  it("leaves another account's references unresolved (for the upstream, or the pipeline's 422)", async () => {
    const exchange = exchangeOf(refs());
    const resolved = await resolveStoredReferences(depsWith('other'), exchange, decodeInbound(exchange), auth('acct'));
    expect(resolved.unresolvedReferences).toEqual(stored.output.map((item) => item.id));
    expect(JSON.parse(exchange.raw).input[1].type).toBe('item_reference');
  });

  it('bounds the body the references make: one item named many times counts each time (413 before it is built)', async () => {
    // A stored answer of 100 KB, named 50 times in a 4 KB body: 5 MB once resolved, under a 1 MB limit.
    const long = encodeResponsesResponse({ ...answer, content: [{ type: 'text', text: 'x'.repeat(100_000) }] } as ChatResponse, request) as { output: Array<{ id: string }> };
    const exchange = exchangeOf(Array.from({ length: 50 }, () => ({ type: 'item_reference', id: long.output[0]!.id })));
    const before = exchange.raw;
    const resolving = resolveStoredReferences(depsWith('acct', 1_000_000, long), exchange, decodeInbound(exchange), auth('acct'));
    await expect(resolving).rejects.toMatchObject({ code: 'request_too_large', status: 413, details: { limit_bytes: 1_000_000 } });
    expect(exchange.raw).toBe(before);
    // Under the limit, the same references resolve.
    const few = exchangeOf(Array.from({ length: 5 }, () => ({ type: 'item_reference', id: long.output[0]!.id })));
    const resolved = await resolveStoredReferences(depsWith('acct', 1_000_000, long), few, decodeInbound(few), auth('acct'));
    expect(resolved.unresolvedReferences).toBeUndefined();
    expect(JSON.parse(few.raw).input).toHaveLength(5);
  });
});
