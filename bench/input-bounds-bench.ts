/**
 * µs per request of the input bounds on the chat hot path: the JSON depth walk
 * (`findTooDeepField`) and the per-field checks (`checkInferenceBounds`), next to the
 * `JSON.parse` every request already pays (the baseline of the same run).
 * Also the redaction of upstream keys by value on an error message (three keys remembered),
 * which runs only where an error envelope, a stream error event or a log line is made.
 * Run by hand: `node --import tsx bench/input-bounds-bench.ts`.
 */
import { checkInferenceBounds } from '../src/server/check-inference-bounds.ts';
import { findTooDeepField } from '../src/util/json-depth.ts';
import { redactSecrets, rememberSecret } from '../src/util/redact-secrets.ts';

const SYSTEM = 'You are a helpful assistant. Answer in one short sentence.';
const small = JSON.stringify({ model: 'openai/bench-model', messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Write one sentence about a quick brown fox.' }], stream: true });
const tool = (i: number) => ({
  type: 'function',
  function: { name: `tool${i}`, description: 'Does a thing', parameters: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'object', properties: { c: { type: 'number' } } } } }, required: ['a'] } },
});
const turns = Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6) }));
const medium = JSON.stringify({ model: 'openai/bench-model', messages: turns, tools: Array.from({ length: 10 }, (_, i) => tool(i)), metadata: { user: 'u1', run: 'r2' }, stream: true });

function time(n: number, op: () => void): number {
  for (let i = 0; i < Math.min(n, 20_000); i += 1) op();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1) op();
  return Number(process.hrtime.bigint() - start) / n / 1_000;
}

const rows = [];
for (const [name, raw, n] of [['chat (bench body, 218 B)', small, 500_000], ['chat, 30 turns + 10 tools (15 KB)', medium, 50_000]] as const) {
  const parsed = JSON.parse(raw) as Record<string, unknown>;
  const parse = time(n, () => JSON.parse(raw));
  const bounds = time(n, () => {
    findTooDeepField(parsed);
    checkInferenceBounds(parsed);
  });
  rows.push({ body: name, 'JSON.parse µs': parse.toFixed(3), 'bounds µs': bounds.toFixed(3), 'bounds ÷ parse': `${((bounds / parse) * 100).toFixed(1)}%` });
}
console.table(rows);

for (const key of ['AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEF', 'hdr_tok_9f8e7d6c5b4a3210']) rememberSecret(key);
const message = "The provider 'openai' rejected the request: This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.";
console.table([{ 'redactSecrets, 3 keys, 150-char message, none found (µs)': time(500_000, () => redactSecrets(message)).toFixed(3) }]);
