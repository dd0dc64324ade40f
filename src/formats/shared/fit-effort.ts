/** Reasoning efforts and thinking levels, weakest first, as every format names them. */
const ORDER: readonly string[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * The effort to ask a model for that takes only `levels` (weakest first): `asked` when it is one
 * of them, else the next stronger one it has, else its strongest. An effort no format names gets
 * the weakest.
 */
export function fitEffort<T extends string>(levels: readonly T[], asked: string): T {
  const rank = ORDER.indexOf(asked);
  return levels.find((level) => ORDER.indexOf(level) >= rank) ?? levels[levels.length - 1];
}
