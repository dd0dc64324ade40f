import type { Metric } from 'prom-client';

/** Label values of one series, in the order of the family's label names. */
type LabelSet = Record<string, string>;

interface SeriesValue {
  value: number;
  labels: LabelSet;
  metricName?: string;
}

/** What prom-client's registry reads from a metric to render it (`Registry.getMetricsAsString`). */
interface RenderedMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: SeriesValue[];
  aggregator: 'sum';
}

/** Label values past this many series per family share one `_other` series (a bound on memory and scrape size). */
export const DEFAULT_MAX_SERIES = 2000;

const OTHER = '_other';

/**
 * A metric family with its children (one per label set) found by walking nested maps of label
 * values: no string building, hashing of label objects or allocation when a series exists.
 * prom-client's own `labels(...).inc()` hashes the label object on every call (about 0.3 µs for
 * four labels); these families are rendered by prom-client's registry through `get()`.
 */
abstract class Family<C> {
  private readonly root = new Map<string, unknown>();
  private readonly list: Array<{ labels: LabelSet; child: C }> = [];
  private other: C | undefined;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    private readonly maxSeries = DEFAULT_MAX_SERIES,
  ) {}

  protected abstract create(): C;

  /** The child for these label values (as many as label names), created on first use. */
  child(a = '', b = '', c = '', d = ''): C {
    const depth = this.labelNames.length;
    let map = this.root;
    for (let i = 0; i < depth - 1; i += 1) {
      const value = i === 0 ? a : i === 1 ? b : c;
      let next = map.get(value) as Map<string, unknown> | undefined;
      if (!next) {
        if (this.list.length >= this.maxSeries) return this.overflow();
        next = new Map();
        map.set(value, next);
      }
      map = next;
    }
    const last = depth === 0 ? '' : depth === 1 ? a : depth === 2 ? b : depth === 3 ? c : d;
    const found = map.get(last) as C | undefined;
    return found ?? this.add(map, last, [a, b, c, d]);
  }

  private add(map: Map<string, unknown>, key: string, values: string[]): C {
    if (this.list.length >= this.maxSeries) return this.overflow();
    const child = this.create();
    map.set(key, child);
    this.list.push({ labels: this.labelsOf(values), child });
    return child;
  }

  private overflow(): C {
    if (!this.other) {
      this.other = this.create();
      this.list.push({ labels: this.labelsOf(this.labelNames.map(() => OTHER)), child: this.other });
    }
    return this.other;
  }

  private labelsOf(values: string[]): LabelSet {
    const labels: LabelSet = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i]));
    return labels;
  }

  protected series(): ReadonlyArray<{ labels: LabelSet; child: C }> {
    return this.list;
  }

  /** Drops every series (prom-client's `registry.resetMetrics()`). */
  reset(): void {
    this.root.clear();
    this.list.length = 0;
    this.other = undefined;
  }

  /** This family as a prom-client metric, for `registry.registerMetric`. */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}

/** One counter series. */
export class CounterChild {
  value = 0;

  inc(by = 1): void {
    this.value += by;
  }
}

/** A counter family (`_total` is part of the name given); `collect` (optional) sets totals kept elsewhere right before each scrape. */
export class CounterFamily extends Family<CounterChild> {
  readonly type = 'counter';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    maxSeries = DEFAULT_MAX_SERIES,
    private readonly collect?: (family: CounterFamily) => void,
  ) {
    super(name, help, labelNames, maxSeries);
  }

  protected create(): CounterChild {
    return new CounterChild();
  }

  get(): RenderedMetric {
    this.collect?.(this);
    return { name: this.name, help: this.help, type: 'counter', aggregator: 'sum', values: this.series().map((s) => ({ value: s.child.value, labels: s.labels })) };
  }
}

/** One gauge series. */
export class GaugeChild {
  value = 0;

  set(value: number): void {
    this.value = value;
  }
}

/** A gauge family; `collect` (optional) sets the values right before each scrape. */
export class GaugeFamily extends Family<GaugeChild> {
  readonly type = 'gauge';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly collect?: (family: GaugeFamily) => void,
  ) {
    super(name, help, labelNames);
  }

  protected create(): GaugeChild {
    return new GaugeChild();
  }

  /** Sets every existing series (e.g. to 0 before the open ones are set to 1 again). */
  setAll(value: number): void {
    for (const series of this.series()) series.child.set(value);
  }

  get(): RenderedMetric {
    this.collect?.(this);
    return { name: this.name, help: this.help, type: 'gauge', aggregator: 'sum', values: this.series().map((s) => ({ value: s.child.value, labels: s.labels })) };
  }
}

/** One histogram series: per-bucket counts (not cumulative), sum and count. */
export class HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i += 1) {
      if (value <= bounds[i]) {
        this.counts[i] += 1;
        break;
      }
    }
    this.sum += value;
    this.count += 1;
  }
}

/** A histogram family with fixed upper bounds (seconds, tokens…); `+Inf` is implied. */
export class HistogramFamily extends Family<HistogramChild> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  protected create(): HistogramChild {
    return new HistogramChild(this.bounds);
  }

  get(): RenderedMetric {
    const values: SeriesValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, child } of this.series()) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i += 1) {
        cumulative += child.counts[i];
        values.push({ value: cumulative, labels: { ...labels, le: String(this.bounds[i]) }, metricName: bucket });
      }
      values.push({ value: child.count, labels: { ...labels, le: '+Inf' }, metricName: bucket });
      values.push({ value: child.sum, labels, metricName: `${this.name}_sum` });
      values.push({ value: child.count, labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }
}
