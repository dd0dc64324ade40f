import { describe, expect, it } from 'vitest';
import { describeError, editText, fitColumns, layoutRow, moveCursor, truncate, windowStart } from '../../../src/tui/core/index.ts';

describe('editText', () => {
  it('types, deletes, clears, submits and cancels', () => {
    expect(editText('ab', 'c', {})).toEqual({ kind: 'edit', value: 'abc' });
    expect(editText('abc', '', { delete: true })).toEqual({ kind: 'edit', value: 'ab' });
    expect(editText('abc', '', { backspace: true })).toEqual({ kind: 'edit', value: 'ab' });
    expect(editText('abc', 'u', { ctrl: true })).toEqual({ kind: 'edit', value: '' });
    expect(editText('abc', '', { return: true })).toEqual({ kind: 'submit', value: 'abc' });
    expect(editText('abc', '', { escape: true })).toEqual({ kind: 'cancel' });
  });

  it('submits pasted text at its first newline and drops control characters and arrow keys', () => {
    expect(editText('x', 'ab\u0007c', {})).toEqual({ kind: 'edit', value: 'xabc' });
    expect(editText('x', 'from-tui\r', {})).toEqual({ kind: 'submit', value: 'xfrom-tui' });
    expect(editText('', 'a\nb', {})).toEqual({ kind: 'submit', value: 'a' });
    expect(editText('x', '', { leftArrow: true })).toEqual({ kind: 'edit', value: 'x' });
  });
});

describe('moveCursor and windowStart', () => {
  it('moves with arrows, j/k, pages and ends, clamped', () => {
    expect(moveCursor(0, 5, '', { upArrow: true })).toBe(0);
    expect(moveCursor(0, 5, 'j', {})).toBe(1);
    expect(moveCursor(4, 5, '', { downArrow: true })).toBe(4);
    expect(moveCursor(1, 50, '', { pageDown: true }, 10)).toBe(11);
    expect(moveCursor(3, 50, 'G', {})).toBe(49);
    expect(moveCursor(3, 0, 'j', {})).toBe(0);
  });

  it('scrolls as little as possible to keep the cursor visible', () => {
    expect(windowStart(0, 3, 10)).toBe(0);
    expect(windowStart(12, 40, 10, 0)).toBe(3);
    expect(windowStart(5, 40, 10, 3)).toBe(3);
    expect(windowStart(1, 40, 10, 3)).toBe(1);
  });
});

describe('fitColumns', () => {
  const specs = [{ header: 'ID' }, { header: 'EMAIL', min: 8 }, { header: 'N', align: 'right' as const }];
  const rows = [['key_1', 'someone.with.a.long.name@example.com', '7']];

  it('uses natural widths when they fit', () => {
    expect(fitColumns(specs, rows, 100)).toEqual([5, 36, 1]);
  });

  it('shrinks the widest column first, not below its floor', () => {
    const widths = fitColumns(specs, rows, 30);
    expect(widths.reduce((a, b) => a + b) + 4).toBe(30);
    expect(widths[0]).toBe(5);
    expect(fitColumns(specs, rows, 5)[1]).toBe(8);
  });

  it('pads, right-aligns and truncates with an ellipsis', () => {
    expect(layoutRow(['a', 'long-text', '7'], [3, 5, 3], specs)).toBe('a    long…    7');
    expect(truncate('abcdef', 4)).toBe('abc…');
  });
});

describe('describeError', () => {
  it('turns zod issue lists into field: message', () => {
    const message = JSON.stringify([{ code: 'invalid_format', path: ['email'], message: 'Invalid email address' }], null, 2);
    expect(describeError(new Error(message))).toBe('email: Invalid email address');
  });

  it('names an unreachable server', () => {
    const error = new Error('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(describeError(error)).toBe('cannot reach the gateway server (ECONNREFUSED): is it still running?');
  });

  it("names the gateway's error code: over HTTP (tRPC's data.gatewayCode) and in process (the cause)", () => {
    const overHttp = Object.assign(new Error('No account with email x.'), { data: { code: 'NOT_FOUND', httpStatus: 404, gatewayCode: 'not_found' } });
    expect(describeError(overHttp)).toBe('No account with email x. (not_found)');
    const cause = Object.assign(new Error('Insufficient credits.'), { code: 'insufficient_balance', status: 402 });
    const inProcess = Object.assign(new Error('Insufficient credits.'), { code: 'BAD_REQUEST', cause });
    expect(describeError(inProcess)).toBe('Insufficient credits. (insufficient_balance)');
    // A tRPC code or a socket's is not the gateway's: none is shown.
    expect(describeError(Object.assign(new Error('boom'), { code: 'INTERNAL_SERVER_ERROR' }))).toBe('boom');
  });

  it('keeps the first line of anything else', () => {
    expect(describeError(new Error('No account with email x.\nstack'))).toBe('No account with email x.');
    expect(describeError('plain')).toBe('plain');
  });
});
