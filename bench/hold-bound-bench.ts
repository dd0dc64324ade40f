/**
 * µs per request of the hold's input bound (`boundInputTokens`: UTF-8 bytes + framing) next to
 * the old estimate (characters / 4) and the `JSON.parse` of the same body every request pays
 * (the baseline of the same run). Run by hand: `node --import tsx bench/hold-bound-bench.ts`.
 */
import type { ChatRequest, ToolDefinition } from '../src/ir/types.ts';
import { boundInputTokens, estimateInputTokens } from '../src/pipeline/index.ts';

const tool = (i: number): ToolDefinition => ({ name: `tool${i}`, description: 'Does a thing', parameters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } });
const request = (text: string, turns: number, tools: number): ChatRequest => ({
  model: 'openai/bench-model',
  system: [{ type: 'text', text: 'You are a helpful assistant.' }],
  stream: false,
  messages: Array.from({ length: turns }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text }] })),
  tools: Array.from({ length: tools }, (_, i) => tool(i)),
});

function time(n: number, op: () => void): number {
  for (let i = 0; i < Math.min(n, 20_000); i += 1) op();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1) op();
  return Number(process.hrtime.bigint() - start) / n / 1_000;
}

const cases = [
  ['5 characters, 1 message', request('spend', 1, 0), 500_000],
  ['30 turns + 10 tools (15 KB)', request('Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6), 30, 10), 50_000],
  ['51 turns, non-ASCII (1 MB)', request('The quick brown fox — jumps über the lazy dog. '.repeat(400), 51, 0), 500],
] as const;
const rows = cases.map(([name, ir, n]) => {
  const body = JSON.stringify(ir);
  const parse = time(n, () => JSON.parse(body));
  const estimate = time(n, () => estimateInputTokens(ir));
  const bound = time(n, () => boundInputTokens(ir));
  return { case: name, 'JSON.parse µs': parse.toFixed(2), 'estimate µs': estimate.toFixed(2), 'bound µs': bound.toFixed(2), 'bound / parse': (bound / parse).toFixed(3), 'tokens (estimate → bound)': `${estimateInputTokens(ir)} → ${boundInputTokens(ir)}` };
});
console.table(rows);
