import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterFamily, GaugeFamily, HistogramFamily } from '../../src/observability/index.ts';
import { histogramOf, parsePrometheus, seriesOf, valueOf } from '../helpers/prometheus.ts';

async function render(...families: Array<CounterFamily | GaugeFamily | HistogramFamily>): Promise<string> {
  const registry = new Registry();
  for (const family of families) registry.registerMetric(family.asMetric());
  return registry.metrics();
}

describe('metric families', () => {
  it('finds the same child for the same label values and renders counters through prom-client', async () => {
    const family = new CounterFamily('x_total', 'help text', ['a', 'b']);
    const child = family.child('1', 'z');
    expect(family.child('1', 'z')).toBe(child);
    child.inc();
    family.child('1', 'z').inc(2);
    family.child('2', 'with "quotes" and \\ and\nnewline').inc();
    const text = await render(family);
    expect(text).toContain('# TYPE x_total counter');
    const m = parsePrometheus(text);
    expect(valueOf(m, 'x_total', { a: '1', b: 'z' })).toBe(3);
    expect(valueOf(m, 'x_total', { a: '2', b: 'with "quotes" and \\ and\nnewline' })).toBe(1);
  });

  it('keeps a family without labels as one series', async () => {
    const family = new CounterFamily('plain_total', 'h', []);
    family.child().inc(4);
    expect(valueOf(parsePrometheus(await render(family)), 'plain_total')).toBe(4);
  });

  it('renders histograms with cumulative buckets, +Inf, sum and count', async () => {
    const family = new HistogramFamily('h_seconds', 'h', ['op'], [0.1, 1, 10]);
    for (const v of [0.05, 0.1, 0.5, 5, 50]) family.child('chat').observe(v);
    const m = parsePrometheus(await render(family));
    expect(histogramOf(m, 'h_seconds', { op: 'chat' })).toEqual({ count: 5, sum: 55.65 });
    const buckets = seriesOf(m, 'h_seconds_bucket', { op: 'chat' }).map((s) => [s.labels?.le, Number(s.value)]);
    expect(buckets).toEqual([
      ['0.1', 2],
      ['1', 3],
      ['10', 4],
      ['+Inf', 5],
    ]);
  });

  it('sets gauges right before a scrape', async () => {
    let now = 3;
    const family = new GaugeFamily('g', 'h', [], (f) => f.child().set(now));
    expect(valueOf(parsePrometheus(await render(family)), 'g')).toBe(3);
    now = 7;
    expect(valueOf(parsePrometheus(await render(family)), 'g')).toBe(7);
  });

  it('caps the series of a family: label sets past the cap share one _other series', async () => {
    const family = new CounterFamily('capped_total', 'h', ['model', 'provider'], 3);
    for (let i = 0; i < 10; i += 1) family.child(`m${i}`, 'p').inc();
    family.child('m0', 'p').inc();
    const m = parsePrometheus(await render(family));
    expect(seriesOf(m, 'capped_total')).toHaveLength(4);
    expect(valueOf(m, 'capped_total', { model: 'm0', provider: 'p' })).toBe(2);
    expect(valueOf(m, 'capped_total', { model: '_other', provider: '_other' })).toBe(7);
  });
});
