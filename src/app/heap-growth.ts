import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * How far V8 lets the old generation grow past what the last full GC kept, in percent, for a
 * serving process (docs/packaging.md, "Memory"). V8's own factor goes up to 4× while GC is
 * cheap, so under load a gateway with ~30 MB of live objects let promoted request garbage
 * pile up to ~120 MB before collecting it (peak RSS 210–235 MB); at 1.3× it stays under 150 MB
 * for a few more major GCs (each a few ms, mostly incremental).
 */
export const SERVE_HEAP_GROWING_PERCENT = 30;

const FLAG = '--heap-growing-percent';

/** Whether the process was started with its own heap-growing flag (node args or NODE_OPTIONS): then that one stands. */
export function heapGrowthSetByUser(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const named = (arg: string) => arg.replaceAll('_', '-').startsWith(FLAG);
  return execArgv.some(named) || nodeOptions.split(/\s+/).some(named);
}

/**
 * Sets V8's heap growing factor for this process unless the user set one at launch. V8 reads
 * the flag at every full GC, so setting it at run time takes effect from the next one (unlike
 * the young generation's size, which is fixed when the process starts). Returns the percent
 * now in force, or undefined when the user's own flag stands.
 */
export function limitHeapGrowth(percent = SERVE_HEAP_GROWING_PERCENT): number | undefined {
  if (heapGrowthSetByUser()) return undefined;
  v8.setFlagsFromString(`${FLAG}=${percent}`);
  return percent;
}

/**
 * The young generation a serving process keeps: 2 × 16 MiB semi-spaces, V8's most on Node 20
 * and 22. Node 24's V8 grows it to 2 × 64 MiB under a gateway's load (its requests in flight
 * survive scavenges, and V8 grows the space while they do): peak RSS 224–288 MB against
 * 140–151 MB on Node 20 and 22 in the same bench (docs/packaging.md, "Memory").
 */
export const SERVE_YOUNG_GENERATION_BYTES = 32 * 1024 * 1024;

const YOUNG_FLAGS = ['--max-semi-space-size', '--semi-space-growth-factor', '--min-semi-space-size'];

/** Whether the process was started with its own young-generation flag (node args or NODE_OPTIONS): then that one stands. */
export function youngGenerationSetByUser(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  const named = (arg: string) => YOUNG_FLAGS.some((flag) => arg.replaceAll('_', '-').startsWith(flag));
  return execArgv.some(named) || nodeOptions.split(/\s+/).some(named);
}

/** The young generation's size now (both semi-spaces). */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Keeps the young generation at `bytes` or below. Its largest size is fixed when the process
 * starts (a launch flag, `--max-semi-space-size`, that `gateway serve` cannot pass itself), but V8
 * reads `--semi-space-growth-factor` at each scavenge that would grow it: after each GC, once the
 * space has reached `bytes` growing stops (factor 1); should V8 shrink it (an idle process), it may
 * grow again (factor 2, V8's own). One look at the heap spaces per GC, a few µs every few hundred
 * requests. Returns a stop function, or undefined when the user's own flag stands.
 */
export function limitYoungGeneration(bytes = SERVE_YOUNG_GENERATION_BYTES): (() => void) | undefined {
  if (youngGenerationSetByUser()) return undefined;
  let frozen = false;
  const check = () => {
    const full = youngGenerationBytes() >= bytes;
    if (full === frozen) return;
    frozen = full;
    v8.setFlagsFromString(`--semi-space-growth-factor=${full ? 1 : 2}`);
  };
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  check();
  return () => observer.disconnect();
}
