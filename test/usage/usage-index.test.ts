import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/store/file/usage-ledger.ts';
import { UsageIndex, utcDay, utcMonth, utcWeekStart } from '../../src/usage/usage-index.ts';

let seq = 0;
function line(ts: number, o: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    seq: ++seq,
    ts,
    request_id: '',
    account_id: 'a1',
    key_id: 'k1',
    model: 'mock/echo',
    provider: 'mock',
    endpoint: '/v1/chat/completions',
    input_tokens: 100,
    output_tokens: 50,
    reasoning_tokens: 5,
    cached_tokens: 0,
    cost_credits: 2,
    charged_credits: 2,
    estimated: false,
    aborted: false,
    ...o,
  };
}

// Wednesday 2026-01-14 12:00 UTC.
const NOW = Date.UTC(2026, 0, 14, 12);
const DAY = 86_400_000;

describe('UsageIndex', () => {
  it('weeks start on Monday (UTC)', () => {
    expect(utcWeekStart(NOW)).toBe('2026-01-12');
    expect(utcWeekStart(Date.UTC(2026, 0, 18, 23))).toBe('2026-01-12');
    expect(utcWeekStart(Date.UTC(2026, 0, 19, 0))).toBe('2026-01-19');
  });

  it('sums key spend per day, week and month, and tokens per account month', () => {
    const index = new UsageIndex();
    index.add(line(NOW));
    index.add(line(NOW - DAY)); // Tuesday, same week
    index.add(line(NOW - 3 * DAY)); // Sunday of the week before, same month
    index.add(line(Date.UTC(2025, 11, 31), { charged_credits: 7 })); // last month
    index.add(line(NOW, { key_id: 'k2', charged_credits: 1 }));
    expect(index.keyCredits('k1', NOW)).toEqual({ total: 13, daily: 2, weekly: 4, monthly: 6 });
    expect(index.keyCredits('k2', NOW)).toEqual({ total: 1, daily: 1, weekly: 1, monthly: 1 });
    expect(index.keyCredits('nope', NOW)).toEqual({ total: 0, daily: 0, weekly: 0, monthly: 0 });
    expect(index.tokensInMonth('a1', NOW)).toBe(4 * 150);
    expect(index.tokensInMonth('a1', Date.UTC(2025, 11, 15))).toBe(150);
    expect(index.accountCredits('a1')).toBe(14);
  });

  it('groups activity by day, model and provider, newest day first, optionally for one key', () => {
    const index = new UsageIndex();
    index.add(line(NOW));
    index.add(line(NOW, { key_id: 'k2' }));
    index.add(line(NOW, { model: 'other/m', provider: 'other' }));
    index.add(line(NOW - DAY));
    index.add(line(NOW, { account_id: 'a2' }));
    const rows = index.activity('a1', { from: '2026-01-13', to: '2026-01-14' });
    expect(rows.map((r) => [r.date, r.model, r.requests])).toEqual([
      ['2026-01-14', 'mock/echo', 2],
      ['2026-01-14', 'other/m', 1],
      ['2026-01-13', 'mock/echo', 1],
    ]);
    expect(rows[0]).toMatchObject({ prompt_tokens: 200, completion_tokens: 100, reasoning_tokens: 10, credits: 4, provider: 'mock' });
    expect(index.activity('a1', { from: '2026-01-14', to: '2026-01-14', keyId: 'k2' }).map((r) => r.requests)).toEqual([1]);
    expect(index.activity('a1', { from: '2026-01-01', to: '2026-01-12' })).toEqual([]);
  });

  it('counts web searches per activity row and per account month; a line without the field counts none', () => {
    const index = new UsageIndex();
    index.add(line(NOW, { web_search_requests: 2 }));
    index.add(line(NOW));
    index.add(line(NOW, { key_id: 'k2', web_search_requests: 1 }));
    index.add(line(NOW - 30 * DAY, { web_search_requests: 4 }));
    index.add(line(NOW, { account_id: 'a2', web_search_requests: 8 }));
    expect(index.activity('a1', { from: '2026-01-14', to: '2026-01-14' })).toEqual([expect.objectContaining({ requests: 3, web_search_requests: 3 })]);
    expect(index.activity('a1', { from: '2026-01-14', to: '2026-01-14', keyId: 'k2' })[0].web_search_requests).toBe(1);
    expect(index.webSearchesInMonth('a1', NOW)).toBe(3);
    expect(index.webSearchesInMonth('a1', NOW - 30 * DAY)).toBe(4);
    expect(index.webSearchesInMonth('a3', NOW)).toBe(0);
  });
});

describe('UsageIndex rows', () => {
  it('adds consecutive settlements of one row to it, and switching rows back and forth keeps each apart', () => {
    const index = new UsageIndex();
    index.add(line(NOW));
    index.add(line(NOW));
    index.add(line(NOW, { key_id: 'k2' }));
    index.add(line(NOW));
    index.add(line(NOW - DAY));
    index.add(line(NOW));
    index.add(line(Date.UTC(2025, 11, 31)));
    index.add(line(NOW, { account_id: 'a2', key_id: 'k9' }));
    expect(index.activity('a1', { from: '2026-01-14', to: '2026-01-14' }).map((r) => r.requests)).toEqual([5]);
    expect(index.activity('a1', { from: '2026-01-14', to: '2026-01-14', keyId: 'k1' }).map((r) => r.requests)).toEqual([4]);
    expect(index.activity('a1', { from: '2026-01-13', to: '2026-01-13' }).map((r) => r.requests)).toEqual([1]);
    expect(index.activity('a2', { from: '2026-01-14', to: '2026-01-14' }).map((r) => r.requests)).toEqual([1]);
    expect(index.tokensInMonth('a1', NOW)).toBe(6 * 150);
    expect(index.tokensInMonth('a1', Date.UTC(2025, 11, 15))).toBe(150);
    expect(index.tokensInMonth('a2', NOW)).toBe(150);
  });
});

describe('utcDay and utcMonth', () => {
  it('name the UTC day and month of any instant, also when asked out of order across their edges', () => {
    const instants = [
      Date.UTC(2026, 0, 31, 23, 59, 59, 999),
      Date.UTC(2026, 1, 1, 0, 0, 0, 0),
      Date.UTC(2026, 0, 31, 0, 0, 0, 0),
      Date.UTC(2024, 1, 29, 12),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      -1,
      0,
      Date.UTC(2026, 0, 31, 12),
    ];
    for (const ms of [...instants, ...instants.slice().reverse()]) {
      expect(utcDay(ms), String(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
      expect(utcMonth(ms), String(ms)).toBe(new Date(ms).toISOString().slice(0, 7));
    }
  });
});

