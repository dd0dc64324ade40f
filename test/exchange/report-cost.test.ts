import { describe, expect, it } from 'vitest';
import type { SettledCharge } from '../../src/observability/index.ts';
import { iterateTarget, type RelayedStream, type StreamTarget } from '../../src/pipeline/index.ts';
import { answerWithCost, streamWithCost } from '../../src/exchange/report-cost.ts';

/** A relayed stream that writes `pieces` (the last one with the end) when pushed. */
function piecesStream(pieces: string[]): RelayedStream {
  return {
    pushTo(target: StreamTarget) {
      for (const piece of pieces.slice(0, -1)) target.write(piece);
      target.end(pieces.at(-1));
    },
    [Symbol.asyncIterator]() {
      return iterateTarget((target) => this.pushTo(target));
    },
  };
}

async function read(stream: RelayedStream): Promise<string[]> {
  const out: string[] = [];
  const iterator = stream[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) return out;
    out.push(typeof next.value === 'string' ? next.value : Buffer.from(next.value).toString());
  }
}

const CHARGE: SettledCharge = { cost: 12, charged: 12 };
const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const DONE = 'data: [DONE]\n\n';
const delta = sse({ id: 'c', choices: [{ index: 0, delta: { content: 'hi' } }] });
const usageChunk = (usage: object) => sse({ id: 'c', choices: [], usage });

describe('usage.cost in a Chat answer (OpenRouter usage accounting)', () => {
  it('a stream: what comes before the usage goes as it came; the usage chunk gets the cost once charged', async () => {
    const out = await read(streamWithCost(piecesStream([delta, usageChunk({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }), DONE]), { format: 'chat' }, Promise.resolve(CHARGE)));
    expect(out[0]).toBe(delta);
    const rest = out.slice(1).join('');
    expect(rest).toBe(`${usageChunk({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, cost: 0.012, is_byok: false })}${DONE}`);
  });

  it('usage in every chunk: each is sent when the next comes, only the last gets the cost', async () => {
    const first = sse({ id: 'c', choices: [{ index: 0, delta: { content: 'a' } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    const out = (await read(streamWithCost(piecesStream([first, usageChunk({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }), DONE]), { format: 'chat' }, Promise.resolve(CHARGE)))).join('');
    expect(out.startsWith(first)).toBe(true);
    expect(out.match(/"cost"/g)).toHaveLength(1);
    expect(out).toContain('"total_tokens":3,"cost":0.012,"is_byok":false');
  });

  it("an upstream's own cost and cost_details give way to the gateway's charge", async () => {
    const out = (await read(streamWithCost(piecesStream([usageChunk({ total_tokens: 3, cost: 0.5, cost_details: { upstream_inference_cost: 0.5 }, is_byok: true }), DONE]), { format: 'chat' }, Promise.resolve(CHARGE)))).join('');
    expect(out).toBe(`${usageChunk({ total_tokens: 3, cost: 0.012, is_byok: false })}${DONE}`);
  });

  it('no charge (a batch line charged already, a line not written): the stream goes as it came', async () => {
    const pieces = [delta, usageChunk({ total_tokens: 3 }), DONE];
    expect((await read(streamWithCost(piecesStream(pieces), { format: 'chat' }, Promise.resolve(undefined)))).join('')).toBe(pieces.join(''));
  });

  it('a stream without usage is not held', async () => {
    const pieces = [delta, DONE];
    expect(await read(streamWithCost(piecesStream(pieces), { format: 'chat' }, new Promise(() => undefined)))).toEqual(pieces);
  });

  it('a whole answer gets the cost in its usage; one without usage is left alone', async () => {
    const json = JSON.stringify({ id: 'c', choices: [], usage: { total_tokens: 3 } });
    const answer = await answerWithCost({ status: 200, headers: {}, json, settled: Promise.resolve() }, { format: 'chat' }, Promise.resolve(CHARGE));
    expect(JSON.parse(answer.json!).usage).toEqual({ total_tokens: 3, cost: 0.012, is_byok: false });
    const bare = JSON.stringify({ id: 'c', choices: [] });
    expect((await answerWithCost({ status: 200, headers: {}, json: bare, settled: Promise.resolve() }, { format: 'chat' }, Promise.resolve(CHARGE))).json).toBe(bare);
  });
});
