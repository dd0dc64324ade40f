import { describe, expect, it } from 'vitest';
import { formatSummary, type Goals, type RunRecord, type TargetName } from '../../bench/report.ts';
import type { LoadResult } from '../../bench/load.ts';

const result = { rps: 1000, p50: 1, p99: 2, ttfbP50: 1, errors: 0 } as unknown as LoadResult;
const record = (concurrency: number, target: TargetName, cpuUsPerReq: number): RunRecord => ({ case: 'chat', concurrency, target, cpuUsPerReq, result });
const goals: Goals = { cpuRatio: { default: 2 }, cpuAt: 50, addedP50Ms: 0.25, addedTtfbMs: 0.2, peakRssMb: 150 };
const verdict = (table: string) => table.trim().split('\n').at(-1)!;

describe('bench summary verdict', () => {
  it('judges CPU at the goal concurrency and notes another one over the goal', () => {
    const table = formatSummary([record(1, 'gateway', 204), record(1, 'proxy', 100), record(50, 'gateway', 168), record(50, 'proxy', 100)], ['chat'], [1, 50], goals);
    expect(table).toContain('at 50 connections');
    expect(verdict(table)).toMatch(/meets goals \(note: CPU > 2× at c=1\)$/);
  });

  it('misses when the goal concurrency is over the goal', () => {
    const table = formatSummary([record(1, 'gateway', 150), record(1, 'proxy', 100), record(50, 'gateway', 230), record(50, 'proxy', 100)], ['chat'], [1, 50], goals);
    expect(verdict(table)).toMatch(/misses: CPU > 2× at c=50$/);
  });

  it('judges every concurrency when the goal one was not measured', () => {
    const table = formatSummary([record(1, 'gateway', 204), record(1, 'proxy', 100)], ['chat'], [1], goals);
    expect(table).toContain('at every concurrency');
    expect(verdict(table)).toMatch(/misses: CPU > 2×$/);
  });
});
