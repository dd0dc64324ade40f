/** The deepest nesting of objects and arrays accepted in a request body (docs/limits.md). */
export const MAX_JSON_DEPTH = 64;

/**
 * The walk's stack of containers and their levels, kept between calls: every request body is
 * walked, and two arrays grown for it were half of what parsing a small body allocates. Slots
 * are written by index (popping would shrink the arrays) and emptied after each walk, so they
 * hold no body.
 */
const pending: unknown[] = [];
const levels: number[] = [];
const KEPT_SLOTS = 1024;

/**
 * True when `value` nests objects/arrays deeper than `maxDepth` (the value itself is level 1).
 * Iterative, with an explicit stack: a 5,000-deep value cannot overflow the call stack here,
 * and a normal body costs about a tenth of a microsecond per few dozen containers.
 */
export function isTooDeep(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  pending[0] = value;
  levels[0] = 1;
  let top = 0;
  let used = 1;
  let deep = false;
  while (top >= 0) {
    const node = pending[top] as object;
    const depth = levels[top];
    top -= 1;
    if (depth > maxDepth) {
      deep = true;
      break;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) top = pushContainer(node[i], depth + 1, top);
    } else {
      for (const key in node) top = pushContainer((node as Record<string, unknown>)[key], depth + 1, top);
    }
    if (top >= used) used = top + 1;
  }
  release(used);
  return deep;
}

/** Empties the stack's slots; a stack grown past `KEPT_SLOTS` (a wide body) is let go instead of kept. */
function release(used: number): void {
  if (used <= KEPT_SLOTS) pending.fill(undefined, 0, used);
  else pending.length = levels.length = 0;
}

/** Puts `item` on the stack above `top` when it is a container; answers the new top. */
function pushContainer(item: unknown, depth: number, top: number): number {
  if (typeof item !== 'object' || item === null) return top;
  pending[top + 1] = item;
  levels[top + 1] = depth;
  return top + 1;
}

/** The first top-level field of `body` whose value nests deeper than `maxDepth` levels below it. */
export function findTooDeepField(body: Record<string, unknown>, maxDepth = MAX_JSON_DEPTH): string | undefined {
  if (!isTooDeep(body, maxDepth)) return undefined;
  for (const key of Object.keys(body)) if (isTooDeep(body[key], maxDepth - 1)) return key;
  return undefined;
}
