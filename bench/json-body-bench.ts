/**
 * Large JSON bodies: how long each way of parsing holds the event loop at once, on the body
 * shapes of issue 27 (many small values) and the large legitimate ones (a base64 image, a long
 * chat). Compared in the same run:
 * - `JSON.parse` of the whole text (plus the Buffer → string decoding before it): the longest
 *   block is the whole parse;
 * - parsing in a worker thread: the main thread still has to deserialize the structured clone
 *   the worker posts back (`v8.deserialize` here), in one piece;
 * - the incremental parser (src/server/json-stream-parser.ts) fed 64 KiB socket-sized chunks
 *   with a 3 ms slice: its longest slice and its total CPU.
 * Run by hand: `node --import tsx bench/json-body-bench.ts`.
 */
import { StringDecoder } from 'node:string_decoder';
import v8 from 'node:v8';
import { JsonStreamParser } from '../src/server/json-stream-parser.ts';

const CHUNK = 64 * 1024;
const SLICE_MS = 3;

function shapes(): Array<[string, string]> {
  const msgs = Array.from({ length: 20_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} ${'lorem ipsum '.repeat(35)}` }));
  return [
    ['base64 image, 75 MB', JSON.stringify({ model: 'x', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${'QUJD'.repeat(18_750_000)}` } }] }] })],
    ['chat, 20k turns (9 MB)', JSON.stringify({ model: 'x', messages: msgs })],
    ['1M × [] (at the value bound)', `{"a":[${Array(999_990).fill('[]').join(',')}]}`],
    ['1M × number', `{"a":[${Array(999_990).fill('12345').join(',')}]}`],
    ['200k keys in one object', `{"a":{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(',')}}}`],
    ['arrays 60 deep, 1M values', `{"a":[${Array(16_000).fill(`${'['.repeat(60)}${']'.repeat(60)}`).join(',')}]}`],
  ];
}

function time(op: () => void): number {
  const start = performance.now();
  op();
  return performance.now() - start;
}

function incremental(bytes: Buffer): { total: number; longest: number } {
  const parser = new JsonStreamParser(2_000_000, 64);
  const decoder = new StringDecoder('utf8');
  let raw = '';
  let total = 0;
  let longest = 0;
  for (let from = 0; from < bytes.length; from += CHUNK) {
    const chunk = bytes.subarray(from, from + CHUNK);
    let at = 0;
    let first = true;
    while (at < chunk.length) {
      const start = performance.now();
      if (first) raw += decoder.write(chunk);
      first = false;
      at = parser.feed(chunk, at, start + SLICE_MS);
      const took = performance.now() - start;
      total += took;
      longest = Math.max(longest, took);
    }
  }
  const start = performance.now();
  parser.finish();
  raw += decoder.end();
  total += performance.now() - start;
  return { total, longest };
}

const rows = [];
for (const [name, text] of shapes()) {
  const bytes = Buffer.from(text);
  let parsed: unknown;
  const parse = time(() => {
    parsed = JSON.parse(bytes.toString('utf8'));
  });
  const clone = v8.serialize(parsed);
  const deserialize = time(() => v8.deserialize(clone));
  parsed = undefined;
  const inc = incremental(bytes);
  rows.push({
    body: name,
    'JSON.parse block ms': parse.toFixed(0),
    'worker: main-thread deserialize ms': deserialize.toFixed(0),
    'incremental longest slice ms': inc.longest.toFixed(2),
    'incremental CPU ms': inc.total.toFixed(0),
    'CPU ÷ JSON.parse': (inc.total / parse).toFixed(1),
  });
}
console.table(rows);
