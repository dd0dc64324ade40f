import { describe, expect, it } from 'vitest';
import { utcPeriods } from '../../src/usage/utc-periods.ts';

describe('utcPeriods', () => {
  it('names the UTC day, week (from Monday) and month, and when each ends', () => {
    expect(utcPeriods(Date.UTC(2026, 2, 11, 15, 30))).toEqual({
      day: '2026-03-11',
      week: '2026-03-09',
      month: '2026-03',
      dayStart: Date.UTC(2026, 2, 11),
      dayEnd: Date.UTC(2026, 2, 12),
      weekEnd: Date.UTC(2026, 2, 16),
      monthEnd: Date.UTC(2026, 3, 1),
    });
  });

  it('is exact at the edges, and the remembered day never leaks into the next', () => {
    expect(utcPeriods(Date.UTC(2026, 2, 15, 23, 59, 59, 999))).toMatchObject({ day: '2026-03-15', week: '2026-03-09' }); // Sunday
    expect(utcPeriods(Date.UTC(2026, 2, 16))).toMatchObject({ day: '2026-03-16', week: '2026-03-16', weekEnd: Date.UTC(2026, 2, 23) }); // Monday
    expect(utcPeriods(Date.UTC(2026, 11, 31, 12))).toMatchObject({ month: '2026-12', monthEnd: Date.UTC(2027, 0, 1), week: '2026-12-28' });
    expect(utcPeriods(Date.UTC(2027, 0, 1))).toMatchObject({ day: '2027-01-01', month: '2027-01', week: '2026-12-28' });
    expect(utcPeriods(Date.UTC(2028, 1, 29, 6))).toMatchObject({ day: '2028-02-29', monthEnd: Date.UTC(2028, 2, 1) });
  });
});
