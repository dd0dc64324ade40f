import { describe, expect, it } from 'vitest';
import { fitTable, formatFields, formatTable } from '../../src/cli/format-table.ts';

describe('formatTable and formatFields', () => {
  it('print a tiny or huge amount in plain digits, never in exponent notation', () => {
    // gateway usage --account: one embedding call's USD was '1e-7'.
    const table = formatTable(['MODEL', 'CREDITS', 'USD'], [['mock/embed', 0.0001, 1e-7], ['big', 1e21, 2.5e-12], ['plain', 1500.0483, 0]]);
    expect(table.split('\n')).toEqual([
      'MODEL       CREDITS                 USD',
      'mock/embed  0.0001                  0.0000001',
      'big         1000000000000000000000  0.0000000000025',
      'plain       1500.0483               0',
    ]);
    expect(formatFields({ usd: 1e-7, credits: 3 })).toBe('usd      0.0000001\ncredits  3');
  });

  it('formatFields writes a record\'s *_at Unix seconds as ISO times, and leaves other numbers', () => {
    expect(formatFields({ created_at: 1796037993, failed_at: null, total: 1796037993 })).toBe('created_at  2026-11-30T11:26:33Z\nfailed_at   -\ntotal       1796037993');
  });

  it('fitTable narrows a table to a width: the widest free text cut first, then optional columns left out in order; one that fits is formatTable\'s', () => {
    const headers = ['ID', 'NAME', 'NOTE', 'WHEN'];
    const rows = [['id_1', 'a name that goes on', 'short', '2026-11-30T11:26:33Z'], ['id_22', 'n', 'a note that goes on and on', null]];
    expect(fitTable(headers, rows, 200, { shrink: ['NAME', 'NOTE'], drop: ['WHEN'] })).toEqual({ text: formatTable(headers, rows), dropped: [] });
    // 5 + 19 + 26 + 20 + 6 = 76 wide: NOTE (the widest) is cut to 22, then both in turn.
    expect(fitTable(headers, rows, 72, { shrink: ['NAME', 'NOTE'], drop: ['WHEN'] }).text.split('\n')).toEqual([
      'ID     NAME                 NOTE                    WHEN',
      'id_1   a name that goes on  short                   2026-11-30T11:26:33Z',
      'id_22  n                    a note that goes on a…  -',
    ]);
    // Cut to 8 each they still do not fit 40: WHEN is left out, and the free text gets the room back.
    const narrow = fitTable(headers, rows, 40, { shrink: ['NAME', 'NOTE'], drop: ['WHEN'] });
    expect(narrow.dropped).toEqual(['WHEN']);
    expect(narrow.text.split('\n')).toEqual(['ID     NAME             NOTE', 'id_1   a name that go…  short', 'id_22  n                a note that goe…']);
    for (const line of narrow.text.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    // Ids alone wider than the width: as narrow as it gets, nothing cut that is not free text.
    expect(fitTable(['ID'], [['x'.repeat(30)]], 10, { shrink: [], drop: [] }).text).toBe(`ID\n${'x'.repeat(30)}`);
  });
});
