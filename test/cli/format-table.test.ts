import { describe, expect, it } from 'vitest';
import { formatFields, formatTable } from '../../src/cli/format-table.ts';

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
});
