import { describe, expect, it } from 'vitest';
import { replaceModelInRaw } from '../../src/pipeline/replace-model.ts';

/** What re-serialising the parsed body with the new model gives (the bytes differ only in the model). */
function reserialised(raw: string, to: string): unknown {
  return { ...(JSON.parse(raw) as Record<string, unknown>), model: to };
}

describe('replaceModelInRaw', () => {
  it('rewrites the top-level model and keeps every other byte', () => {
    const raw = '{"model":"openai/gpt-x", "messages":[{"role":"user","content":"hi"}],"max_tokens":5.0}';
    expect(replaceModelInRaw(raw, 'openai/gpt-x', 'gpt-x')).toBe('{"model":"gpt-x", "messages":[{"role":"user","content":"hi"}],"max_tokens":5.0}');
    expect(replaceModelInRaw('{"stream":true,\n  "model" :  "a/b"\n}', 'a/b', 'b')).toBe('{"stream":true,\n  "model":"b"\n}');
  });

  it('writes and finds ids that need escapes as JSON.stringify does (quotes, backslashes, control and non-ASCII characters)', () => {
    for (const id of ['say "hi"', 'back\\slash', 'tab\there', 'new\nline', 'café', 'emoji 😀', 'lone \ud800', 'del \u007f']) {
      const raw = JSON.stringify({ model: id, messages: [] });
      const out = replaceModelInRaw(raw, id, `${id}!`);
      expect(out).toBe(`{"model":${JSON.stringify(`${id}!`)},"messages":[]}`);
      expect(JSON.parse(out!)).toEqual(reserialised(raw, `${id}!`));
      expect(replaceModelInRaw(`{"model":${JSON.stringify(`x${id}`)}}`, 'x', 'y')).toBeUndefined();
    }
  });

  it('answers undefined when the model is not there exactly once, or is written with an escape the needle does not have', () => {
    expect(replaceModelInRaw('{"messages":[]}', 'a', 'b')).toBeUndefined();
    expect(replaceModelInRaw('{"model":"a","x":{"model":"a"}}', 'a', 'b')).toBeUndefined();
    expect(replaceModelInRaw('{"model":"a\\/b"}', 'a/b', 'b')).toBeUndefined();
    expect(replaceModelInRaw('{"model":"a"}', 'a', 'a')).toBe('{"model":"a"}');
  });
});
