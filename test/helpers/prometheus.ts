// @ts-expect-error the package ships no types; its shape is described below
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One metric family as parse-prometheus-text-format returns it (values are strings). */
interface RawFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Array<{ labels?: Record<string, string>; value?: string }>;
}

/** A parsed exposition: families by name; histogram series also under `<name>_bucket|_sum|_count`. */
export type Exposition = Map<string, RawFamily>;

const parse = parsePrometheusTextFormat as (text: string) => RawFamily[];

/**
 * Parses Prometheus text with a real parser (parse-prometheus-text-format throws on a malformed
 * line). That parser folds the series of a labelled histogram into one object and drops their
 * labels, so histograms are read a second time as plain samples (`<name>_bucket`, `_sum`,
 * `_count`, each with its labels).
 */
export function parsePrometheus(text: string): Exposition {
  const families = new Map(parse(text).map((f) => [f.name, f]));
  const histograms = [...families.values()].filter((f) => f.type === 'HISTOGRAM').map((f) => f.name);
  if (histograms.length > 0) {
    const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
    // Each run of `_bucket`, `_sum` or `_count` lines comes back as a family of its own: merge them.
    for (const family of parse(untyped)) {
      if (!histograms.some((name) => family.name === `${name}_bucket` || family.name === `${name}_sum` || family.name === `${name}_count`)) continue;
      const merged = families.get(family.name);
      if (merged) merged.metrics.push(...family.metrics);
      else families.set(family.name, { ...family, metrics: [...family.metrics] });
    }
  }
  return families;
}

function matches(labels: Record<string, string> | undefined, where: Record<string, string>): boolean {
  return Object.entries(where).every(([k, v]) => (labels?.[k] ?? '') === v);
}

/** The samples of `name` whose labels include `where`. */
export function seriesOf(families: Exposition, name: string, where: Record<string, string> = {}): RawFamily['metrics'] {
  const family = families.get(name);
  if (!family) throw new Error(`no metric family ${name}`);
  return family.metrics.filter((m) => matches(m.labels, where));
}

/** Sum of the values of the samples of `name` whose labels include `where`. */
export function valueOf(families: Exposition, name: string, where: Record<string, string> = {}): number {
  return seriesOf(families, name, where).reduce((total, m) => total + Number(m.value), 0);
}

/**
 * Count and sum of the histogram series of `name` whose labels include `where`, after checking
 * each series is well formed: cumulative buckets that never decrease, `+Inf` equal to the count.
 */
export function histogramOf(families: Exposition, name: string, where: Record<string, string> = {}): { count: number; sum: number } {
  if (families.get(name)?.type !== 'HISTOGRAM') throw new Error(`${name} is not a histogram`);
  const counts = seriesOf(families, `${name}_count`, where);
  for (const series of counts) {
    const labels = series.labels ?? {};
    const buckets = seriesOf(families, `${name}_bucket`, labels).filter((b) => Object.keys(b.labels ?? {}).length === Object.keys(labels).length + 1);
    const values = buckets.map((b) => Number(b.value));
    if (values.some((v, i) => i > 0 && v < values[i - 1])) throw new Error(`${name}${JSON.stringify(labels)}: buckets decrease`);
    const inf = buckets.find((b) => b.labels?.le === '+Inf');
    if (!inf || Number(inf.value) !== Number(series.value)) throw new Error(`${name}${JSON.stringify(labels)}: +Inf bucket is not the count`);
  }
  return {
    count: counts.reduce((t, m) => t + Number(m.value), 0),
    sum: seriesOf(families, `${name}_sum`, where).reduce((t, m) => t + Number(m.value), 0),
  };
}
