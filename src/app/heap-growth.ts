import v8 from 'node:v8';

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
