/**
 * A count an upstream reported (e.g. its web searches), as the gateway takes it: a positive
 * finite number, else none. The charge, the request log and the stores read a count by this
 * one rule, so none of them shows a count the others did not take.
 */
export function reportedCount(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}
