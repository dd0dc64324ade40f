import type { CatalogModel } from '../providers/index.ts';
import type { RoutingStrategy } from '../config/index.ts';

/** What a strategy may read besides the candidates themselves. */
export interface OrderContext {
  /** Moving-average time to first byte of a candidate (by catalog id), if observed. */
  latency(id: string): number | undefined;
  /** Uniform random number in [0, 1) (injectable for tests). */
  random(): number;
}

/** Blended USD per million tokens (input + output); undefined when the model has no prices. */
export function blendedPrice(model: CatalogModel): number | undefined {
  const pricing = model.spec.pricing;
  if (!pricing || (pricing.input === undefined && pricing.output === undefined)) return undefined;
  return (pricing.input ?? 0) + (pricing.output ?? 0);
}

function byPriority(a: CatalogModel, b: CatalogModel): number {
  return a.provider.priority - b.provider.priority;
}

/** Sorts by a key (undefined last, or first when `unknownFirst`), ties broken by priority. */
function byKey(models: readonly CatalogModel[], key: (m: CatalogModel) => number | undefined, unknownFirst = false): CatalogModel[] {
  const missing = unknownFirst ? -Infinity : Infinity;
  return models
    .map((model, index) => ({ model, index, value: key(model) ?? missing }))
    .sort((a, b) => a.value - b.value || byPriority(a.model, b.model) || a.index - b.index)
    .map((entry) => entry.model);
}

/** A weighted shuffle without replacement: higher weight, likelier first. Weight 0 goes last. */
function weightedOrder(models: readonly CatalogModel[], random: () => number): CatalogModel[] {
  const pool = models.filter((m) => m.provider.weight > 0);
  const out: CatalogModel[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, m) => sum + m.provider.weight, 0);
    let pick = random() * total;
    let index = 0;
    while (index < pool.length - 1 && pick >= pool[index].provider.weight) {
      pick -= pool[index].provider.weight;
      index += 1;
    }
    out.push(pool.splice(index, 1)[0]);
  }
  return [...out, ...models.filter((m) => m.provider.weight <= 0).sort(byPriority)];
}

/**
 * Orders the providers of one model by a strategy. `priority`: lower `priority` first.
 * `price`: cheapest blended price first, unpriced last. `latency`: lowest moving-average
 * time to first byte first; unmeasured ones go first so they get measured. `weighted`:
 * random order drawn by provider `weight`.
 */
export function orderCandidates(models: readonly CatalogModel[], strategy: RoutingStrategy, context: OrderContext): CatalogModel[] {
  switch (strategy) {
    case 'price':
      return byKey(models, blendedPrice);
    case 'latency':
      return byKey(models, (m) => context.latency(m.id), true);
    case 'weighted':
      return weightedOrder(models, context.random);
    case 'priority':
      return byKey(models, () => 0);
  }
}
