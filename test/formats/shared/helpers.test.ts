import { describe, expect, it } from 'vitest';
import {
  budgetTokensToEffort,
  collectExtra,
  effortToBudgetTokens,
  encodeBase64,
  generateId,
  joinDataUrl,
  mediaSourceToUrl,
  parseToolArguments,
  prefixedId,
  readErrorBody,
  sanitizeToolId,
  splitDataUrl,
  streamErrorFromUpstream,
  stringifyToolInput,
  urlToMediaSource,
} from '../../../src/formats/shared/index.ts';

describe('data URLs', () => {
  it('splits a base64 data URL into media type and data', () => {
    expect(splitDataUrl('data:image/png;base64,iVBORw0KGgo=')).toEqual({ mediaType: 'image/png', data: 'iVBORw0KGgo=' });
  });

  it('keeps parameters out of the media type', () => {
    expect(splitDataUrl('data:text/plain;charset=utf-8;base64,aGk=')).toEqual({ mediaType: 'text/plain', data: 'aGk=' });
  });

  it('returns undefined for http URLs and non-base64 data URLs', () => {
    expect(splitDataUrl('https://example.com/a.png')).toBeUndefined();
    expect(splitDataUrl('data:text/plain,hello')).toBeUndefined();
  });

  it('joins and round-trips through IR sources', () => {
    const url = joinDataUrl('application/pdf', 'JVBERi0=');
    expect(url).toBe('data:application/pdf;base64,JVBERi0=');
    expect(mediaSourceToUrl(urlToMediaSource(url))).toBe(url);
    expect(urlToMediaSource('https://x.test/a.jpg')).toEqual({ kind: 'url', url: 'https://x.test/a.jpg' });
    expect(mediaSourceToUrl({ kind: 'file_id', fileId: 'file-1' })).toBeUndefined();
  });

  it('encodes UTF-8 text as base64', () => {
    expect(encodeBase64('héllo')).toBe(Buffer.from('héllo').toString('base64'));
    expect(mediaSourceToUrl({ kind: 'text', mediaType: 'text/plain', data: 'hi' })).toBe('data:text/plain;base64,aGk=');
  });
});

describe('sanitizeToolId', () => {
  it('keeps ids that Anthropic accepts', () => {
    expect(sanitizeToolId('call_DdmO9pD3xa9XTPNJ32zg2hcA')).toBe('call_DdmO9pD3xa9XTPNJ32zg2hcA');
    expect(sanitizeToolId('toolu_01-A')).toBe('toolu_01-A');
  });

  it('maps foreign ids deterministically to ^[a-zA-Z0-9_-]+$', () => {
    const safe = sanitizeToolId('functions.get_weather:0');
    expect(safe).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(sanitizeToolId('functions.get_weather:0')).toBe(safe);
  });

  it('keeps ids distinct that differ only in unsafe characters', () => {
    expect(sanitizeToolId('a.b')).not.toBe(sanitizeToolId('a:b'));
  });

  it('gives an empty id a valid name', () => {
    expect(sanitizeToolId('')).toMatch(/^[a-zA-Z0-9_-]+$/);
  });
});

describe('tool arguments', () => {
  it('parses JSON text into an object', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ a: 1 });
  });

  it('turns "", invalid JSON and non-objects into {}', () => {
    expect(parseToolArguments('')).toEqual({});
    expect(parseToolArguments('{"a":')).toEqual({});
    expect(parseToolArguments('[1,2]')).toEqual({});
    expect(parseToolArguments('42')).toEqual({});
  });

  it('stringifies input objects ({} → "{}")', () => {
    expect(stringifyToolInput({})).toBe('{}');
    expect(stringifyToolInput(undefined)).toBe('{}');
    expect(stringifyToolInput({ q: 'x' })).toBe('{"q":"x"}');
  });
});

describe('reasoning budgets', () => {
  it('maps effort to budget tokens (low 1024, medium 2048, high 4096)', () => {
    expect(effortToBudgetTokens('low')).toBe(1024);
    expect(effortToBudgetTokens('medium')).toBe(2048);
    expect(effortToBudgetTokens('high')).toBe(4096);
    expect(effortToBudgetTokens('none')).toBeUndefined();
  });

  it('maps budgets back to the nearest effort', () => {
    expect(budgetTokensToEffort(1024)).toBe('low');
    expect(budgetTokensToEffort(1400)).toBe('low');
    expect(budgetTokensToEffort(2000)).toBe('medium');
    expect(budgetTokensToEffort(3500)).toBe('high');
    expect(budgetTokensToEffort(32000)).toBe('high');
  });
});

describe('ids and errors', () => {
  it('generates prefixed random ids', () => {
    const id = generateId('chatcmpl-');
    expect(id).toMatch(/^chatcmpl-[0-9A-Za-z]{24}$/);
    expect(generateId('chatcmpl-')).not.toBe(id);
  });

  it('gives client ids the format prefix, keeping ids that have it and the upstream id inside', () => {
    expect(prefixedId('msg_', 'msg_01XFD')).toBe('msg_01XFD');
    expect(prefixedId('msg_', 'chatcmpl-B9M')).toBe('msg_chatcmpl-B9M');
    expect(prefixedId('chatcmpl-', 'msg_01XFD')).toBe('chatcmpl-msg_01XFD');
    expect(prefixedId('chatcmpl-', 'gen-17:47/x')).toBe('chatcmpl-gen-1747x');
    expect(prefixedId('msg_', undefined)).toMatch(/^msg_[0-9A-Za-z]{24}$/);
    expect(prefixedId('msg_', '::')).toMatch(/^msg_[0-9A-Za-z]{24}$/);
  });

  it('maps upstream stream errors to gateway codes', () => {
    expect(streamErrorFromUpstream('overloaded_error', 'Overloaded')).toEqual({ code: 'provider_unavailable', message: 'Overloaded', status: 503 });
    expect(streamErrorFromUpstream('tokens', 'slow down', 'rate_limit_exceeded').code).toBe('rate_limit_exceeded');
    expect(streamErrorFromUpstream(undefined, '')).toMatchObject({ code: 'provider_error', status: 502 });
  });

  it('reads error bodies of both vendors and loose shapes', () => {
    expect(readErrorBody(429, { error: { message: 'slow', type: 'requests', code: 'rate_limit_exceeded', param: null } })).toEqual({
      message: 'slow',
      type: 'requests',
      code: 'rate_limit_exceeded',
    });
    expect(readErrorBody(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toEqual({ message: 'Overloaded', type: 'overloaded_error' });
    expect(readErrorBody(500, { error: 'boom' })).toEqual({ message: 'boom' });
    expect(readErrorBody(502, '<html>Bad gateway</html>')).toEqual({ message: '<html>Bad gateway</html>' });
    expect(readErrorBody(503, undefined).message).toContain('503');
  });
});

describe('collectExtra', () => {
  it('keeps the unknown fields in order, a client key named __proto__ as a field (not the copy\'s prototype)', () => {
    const body = JSON.parse('{"model":"m","b":1,"__proto__":{"x":1},"a":2}') as Record<string, unknown>;
    const extra = collectExtra(body, new Set(['model']))!;
    expect(Object.keys(extra)).toEqual(['b', '__proto__', 'a']);
    expect(JSON.stringify(extra)).toBe('{"b":1,"__proto__":{"x":1},"a":2}');
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
  });
});
