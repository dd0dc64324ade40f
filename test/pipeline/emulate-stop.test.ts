import { describe, expect, it } from 'vitest';
import type { ChatResponse, StreamPart } from '../../src/ir/index.ts';
import { cutAtStop, StopCutter } from '../../src/pipeline/emulate-stop.ts';

const usage = { inputTokens: 1, outputTokens: 2 } as ChatResponse['usage'];

function run(stops: string[], parts: StreamPart[]): StreamPart[] {
  const cutter = new StopCutter(stops);
  return parts.flatMap((part) => cutter.push(part));
}

const deltas = (...texts: string[]): StreamPart[] => texts.map((text) => ({ type: 'text-delta', text }));

describe('emulated stop sequences', () => {
  it('a stop split over three deltas: nothing of it is sent, the text block and the answer end there; usage and end go on', () => {
    const out = run(['END'], [{ type: 'text-start' }, ...deltas('abc E', 'N', 'D more'), { type: 'text-end' }, { type: 'tool-call-start', index: 0, id: 'c', name: 'f' }, { type: 'finish', finishReason: 'tool_calls' }, { type: 'usage', usage }, { type: 'end' }]);
    expect(out).toEqual([{ type: 'text-start' }, { type: 'text-delta', text: 'abc ' }, { type: 'text-end' }, { type: 'finish', finishReason: 'stop', stopSequence: 'END' }, { type: 'usage', usage }, { type: 'end' }]);
  });

  it('a held prefix that turns out not to be the stop is sent, at the latest when the block ends', () => {
    expect(run(['END'], [...deltas('a E', 'x', 'E'), { type: 'text-end' }])).toEqual([...deltas('a ', 'Ex', 'E'), { type: 'text-end' }]);
  });

  it('the earliest of several stops wins, whole answers too; the cut text keeps its tokens and citations before the cut', () => {
    expect(run(['two', 'one'], deltas('zero one two'))).toEqual([...deltas('zero '), { type: 'text-end' }, { type: 'finish', finishReason: 'stop', stopSequence: 'one' }]);
    const response: ChatResponse = {
      id: 'r',
      model: 'm',
      created: 0,
      finishReason: 'tool_calls',
      usage,
      content: [
        { type: 'reasoning', text: 'one thought' },
        { type: 'text', text: 'ab one cd', logprobs: [{ token: 'ab', logprob: 0 }, { token: ' one', logprob: 0 }], citations: [{ type: 'url', url: 'u', startIndex: 0, endIndex: 2 }, { type: 'url', url: 'v', startIndex: 4, endIndex: 7 }] },
        { type: 'tool_call', id: 'c', name: 'f', arguments: '{}' },
      ],
    };
    expect(cutAtStop(response, ['one'])).toEqual({
      ...response,
      finishReason: 'stop',
      stopSequence: 'one',
      content: [{ type: 'reasoning', text: 'one thought' }, { type: 'text', text: 'ab ', logprobs: [{ token: 'ab', logprob: 0 }], citations: [{ type: 'url', url: 'u', startIndex: 0, endIndex: 2 }] }],
    });
    expect(cutAtStop(response, ['none'])).toBe(response);
  });
});

describe('emulated stop sequences: matched as the model writes, linear in the text', () => {
  it('overlapping sequences: the answer stops on the first written in full, as a model stops', () => {
    expect(run(['abcd', 'bc'], deltas('xab', 'cd'))).toEqual([...deltas('x', 'a'), { type: 'text-end' }, { type: 'finish', finishReason: 'stop', stopSequence: 'bc' }]);
    const response: ChatResponse = { id: 'r', model: 'm', created: 0, finishReason: 'stop', usage, content: [{ type: 'text', text: 'xabcd' }] };
    expect(cutAtStop(response, ['abcd', 'bc']).content).toEqual([{ type: 'text', text: 'xa' }]);
  });

  it('a repetitive stop sequence (aab inside aaab): the prefix function keeps the partial match', () => {
    expect(run(['aab'], deltas('a', 'a', 'a', 'b'))).toEqual([...deltas('a'), { type: 'text-end' }, { type: 'finish', finishReason: 'stop', stopSequence: 'aab' }]);
  });

  it('a 10,000-character stop sequence against 200,000 characters in 100-character deltas: fast, and the text all goes out', () => {
    const stop = `${'a'.repeat(9_999)}b`;
    const started = performance.now();
    const out = run([stop], [...Array.from({ length: 2_000 }, () => ({ type: 'text-delta' as const, text: 'a'.repeat(100) })), { type: 'text-end' }]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(out.map((part) => (part.type === 'text-delta' ? part.text : '')).join('')).toHaveLength(200_000);
    expect(out.at(-1)).toEqual({ type: 'text-end' });
  });
});
