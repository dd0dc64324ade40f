import { describe, expect, it } from 'vitest';
import { createChatStreamDecoder } from '../../../src/formats/chat/index.ts';
import { captureEnvelope, readContentChunk, readFinishChunk, readUsageChunk } from '../../../src/formats/chat/read-content-chunk.ts';

const ENVELOPE = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-x","service_tier":"default","system_fingerprint":"fp_1",';
/** The envelope as the decoder captures it from a first chunk. */
const CAPTURED = captureEnvelope(`${ENVELOPE}"choices":[]}`)!;
const plain = (content: string, rest = '}') => `${ENVELOPE}"choices":[{"index":0,"delta":{"content":${content}},"logprobs":null,"finish_reason":null}]${rest}`;

/** The one choice JSON.parse reads in a record without error and without a usage object (else undefined). */
function parsedChoice(data: string): Record<string, unknown> | undefined {
  let chunk: Record<string, unknown>;
  try {
    chunk = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const choices = chunk.choices as Array<Record<string, unknown>>;
  if (chunk.error !== undefined || (chunk.usage !== undefined && chunk.usage !== null) || choices.length !== 1) return undefined;
  return choices[0];
}

/** What JSON.parse says the record's content is, when the record is a plain content chunk (else undefined). */
function parsedContent(data: string): string | undefined {
  const choice = parsedChoice(data);
  if (!choice || choice.finish_reason !== null) return undefined;
  const delta = choice.delta as Record<string, unknown> | undefined;
  return Object.keys(delta ?? {}).join() === 'content' ? (delta!.content as string) : undefined;
}

/** How many of `records` the reader takes, each checked against what JSON.parse reads of it (`parsed`). */
function countReadAsParsed(records: string[], read: (data: string) => unknown, parsed: (data: string) => unknown): number {
  let count = 0;
  for (const data of records) {
    const value = read(data);
    if (value === undefined) continue;
    count += 1;
    expect(value, data).toEqual(parsed(data));
  }
  return count;
}

/** Ends after the choices that neither reader takes: a usage object, a second choices, an error key, a number member, junk, a cut record. */
const ODD_ENDS = [',"usage":{"prompt_tokens":1,"completion_tokens":2}}', ',"choices":[]}', ',"error":null}', ',"n":1}', '} ', '}x', ''];

const RECORDS = [
  plain('"Hello"'),
  plain('""'),
  plain('"a \\"quoted\\" line\\nand \\u00e9 \\ud83e\\udd8a \\\\"'),
  plain('"Grüße 🦊"'),
  plain('"bad \\x escape"'),
  plain('"raw\ttab"'),
  plain('"x"', ',"usage":null}'),
  plain('"x"', ',"obfuscation":"AbC1"}'),
  plain('"x"', ',"obfuscation":"A\\"b"}'),
  ...ODD_ENDS.map((rest) => plain('"x"', rest)),
  plain('"x'),
  plain('"x"').replace('"model":"gpt-x"', '"model":"gpt-y"'),
  plain('"x"').replace('"finish_reason":null', '"finish_reason":"stop"'),
  plain('"x"').replace('"delta":{"content"', '"delta":{"role":"assistant","content"'),
  plain('"x"').replace('"index":0', '"index":1'),
  plain('"x"').replace('"content":', '"content": '),
];

describe('reading a plain Chat content chunk without JSON.parse', () => {
  it('says what JSON.parse says, or leaves the record to it', () => {
    const envelope = captureEnvelope(plain('"first"'));
    expect(envelope?.text).toBe(ENVELOPE);
    const read = countReadAsParsed(RECORDS, (data) => readContentChunk(data, envelope!), parsedContent);
    // The four plain ones (one empty, one escaped), `usage: null` and a string member after the choices.
    expect(read).toBe(6);
    expect(readContentChunk(plain('"a \\"quoted\\" line\\nand \\u00e9 \\ud83e\\udd8a \\\\"'), envelope!)).toBe('a "quoted" line\nand é 🦊 \\');
  });

  it('reads a plain finish chunk\'s finish_reason as JSON.parse does, or leaves the record to it', () => {
    const finish = (reason: string, rest = '}') => `${ENVELOPE}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":${reason}}]${rest}`;
    /** The finish_reason JSON.parse reads, when the record is a plain finish chunk (else undefined). */
    const parsedReason = (data: string): string | undefined => {
      const choice = parsedChoice(data);
      return choice && Object.keys(choice.delta ?? { x: 1 }).length === 0 && typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
    };
    const records = [
      finish('"stop"'),
      finish('"length"'),
      finish('"tool_calls"', ',"usage":null,"obfuscation":"Zz9"}'),
      finish('"content_filter"', ',"obfuscation":"Zz9"}'),
      finish('""'),
      finish('"st\\u006fp"'),
      finish('null'),
      ...ODD_ENDS.map((rest) => finish('"stop"', rest)),
      finish('"stop'),
      finish('"stop"').replace('"delta":{}', '"delta":{"content":"x"}'),
      finish('"stop"').replace('"index":0', '"index":1'),
      finish('"stop"').replace('"gpt-x"', '"gpt-y"'),
      plain('"x"'),
    ];
    const read = countReadAsParsed(records, (data) => readFinishChunk(data, CAPTURED), parsedReason);
    // The four plain ones and the empty reason; the escaped one is left to JSON.parse.
    expect(read).toBe(5);
    expect(readFinishChunk(finish('"length"', ',"usage":null}'), CAPTURED)).toBe('length');
  });

  it('reads a plain usage chunk\'s usage as JSON.parse does, or leaves the record to it', () => {
    const usageChunk = (usage: string, rest = '}') => `${ENVELOPE}"choices":[],"usage":${usage}${rest}`;
    const full = '{"prompt_tokens":42,"completion_tokens":20,"total_tokens":62,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}';
    const records = [
      usageChunk(full),
      usageChunk('{"prompt_tokens":1,"completion_tokens":2}', ',"obfuscation":"AbC1"}'),
      usageChunk('{"prompt_tokens":1,"note":"a } and a ] and a \\" quote","x":[{"y":"{"}]}'),
      usageChunk('{}'),
      usageChunk('{"prompt_tokens":1}', ',"obfuscation":"a}b"}'),
      usageChunk('{"prompt_tokens":1}', ',"x":{"y":2}}'),
      usageChunk('{"prompt_tokens":1},"n":{}', '}'),
      usageChunk('null'),
      ...ODD_ENDS.map((rest) => usageChunk('{"prompt_tokens":1}', rest)),
      usageChunk('{"prompt_tokens":1'),
      usageChunk('{"prompt_tokens":1}').replace('"usage":', '"usage": '),
      usageChunk('{"prompt_tokens":1}').replace('"choices":[]', '"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]'),
      usageChunk('{"prompt_tokens":1}').replace('"gpt-x"', '"gpt-y"'),
    ];
    const read = countReadAsParsed(records, (data) => readUsageChunk(data, CAPTURED), (data) => (JSON.parse(data) as { usage: unknown }).usage);
    // The four plain ones: a '}' inside a string after the usage, another object after it, or anything odd is left to JSON.parse.
    expect(read).toBe(4);
    expect(readUsageChunk(usageChunk(full), CAPTURED)).toEqual(JSON.parse(full));
  });

  it('takes an envelope only of top-level members without usage or error', () => {
    expect(captureEnvelope('{"x":{"choices":[1]},"choices":[]}')).toBeUndefined();
    expect(captureEnvelope('{"usage":null,"choices":[]}')).toBeUndefined();
    expect(captureEnvelope('{"error":null,"choices":[]}')).toBeUndefined();
    expect(captureEnvelope('{"choices":[]}')).toBeUndefined();
    expect(captureEnvelope('{"id":"a\\\\","choices":[]}')?.text).toBe('{"id":"a\\\\",');
    expect(captureEnvelope('{"id":"a","x":[{"y":"]"}],"choices":[]}')?.text).toBe('{"id":"a","x":[{"y":"]"}],');
    // Without a nested object (read without a loop): strings holding commas, quotes and the key itself, escaped.
    expect(captureEnvelope('{"id":"a,\\",\\"choices\\":","n":1,"t":true,"choices":[]}')?.text).toBe('{"id":"a,\\",\\"choices\\":","n":1,"t":true,');
    expect(captureEnvelope('{"id":"x\\"","choices":[]}')?.text).toBe('{"id":"x\\"",');
    // A bracket inside a string sends it to the loop, which reads it the same.
    expect(captureEnvelope('{"id":"{[","choices":[]}')?.text).toBe('{"id":"{[",');
    expect(captureEnvelope('{"x":{"y":1},"choices":[]}')?.text).toBe('{"x":{"y":1},');
    expect(captureEnvelope('{"x":[1,[2]],"choices":[]}')?.text).toBe('{"x":[1,[2]],');
    expect(captureEnvelope('{"x":{"a":1,"choices":[]},"choices":[]}')).toBeUndefined();
  });

  it('decodes a stream of such chunks into the parts a parsed one gives', () => {
    const role = `${ENVELOPE}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`;
    const stop = `${ENVELOPE}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`;
    const usage = `${ENVELOPE}"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}`;
    const records = [role, plain('"Hel"'), plain('"lo \\"you\\""', ',"obfuscation":"zz"}'), plain('"x"').replace('"gpt-x"', '"gpt-y"'), plain('"!"', ',"usage":null}'), stop, usage, '[DONE]'];
    const decoder = createChatStreamDecoder();
    const parts = [...records.flatMap((data) => decoder.push({ data })), ...decoder.end()];
    expect(parts).toEqual([
      { type: 'start', id: 'chatcmpl-1', model: 'gpt-x', created: 1700000000 },
      { type: 'text-start' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo "you"' },
      { type: 'text-delta', text: 'x' },
      { type: 'text-delta', text: '!' },
      { type: 'text-end' },
      { type: 'finish', finishReason: 'stop' },
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 4 } },
      { type: 'end' },
    ]);
  });
});
