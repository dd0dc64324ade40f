import type { MessagesBlock, MessagesMessage } from './types.ts';

/** Anthropic allows at most 4 cache breakpoints per request, the client's own included. */
export const MAX_CACHE_BREAKPOINTS = 4;
/** Anthropic's smallest cacheable prefix for most models (Sonnet, Opus 4/4.1); shorter prefixes are simply not cached. */
export const MIN_CACHEABLE_TOKENS = 1024;
/**
 * Models whose minimum cacheable prefix is larger (Anthropic's prompt-caching docs), matched on
 * the upstream model id with dots read as dashes (`claude-haiku-4.5`, Bedrock's
 * `anthropic.claude-3-haiku-…` and dated ids alike). Unknown models get MIN_CACHEABLE_TOKENS:
 * a breakpoint below the real minimum only goes unused, one withheld above it costs money.
 */
const LARGER_MINIMUMS: ReadonlyArray<readonly [RegExp, number]> = [
  [/haiku-4-5|4-5-haiku/, 4096],
  [/opus-4-[56](?!\d)/, 4096],
  [/opus-4-7(?!\d)/, 2048],
  [/haiku-3(?!\d)|(?:^|\D)3(?:-5)?-haiku/, 2048],
];

/** Anthropic's minimum cacheable prefix, in tokens, for an upstream model id. */
export function minCacheableTokens(model: string): number {
  const id = model.toLowerCase().replaceAll('.', '-');
  for (const [pattern, tokens] of LARGER_MINIMUMS) if (pattern.test(id)) return tokens;
  return MIN_CACHEABLE_TOKENS;
}
/** Rough token estimate: about 4 characters of JSON per token. */
const CHARS_PER_TOKEN = 4;
const EPHEMERAL = { type: 'ephemeral' } as const;
/** Blocks Anthropic does not let carry a cache_control marker. */
const UNMARKABLE: ReadonlySet<string> = new Set(['thinking', 'redacted_thinking']);

function estimateTokens(value: unknown): number {
  return value === undefined ? 0 : Math.ceil(JSON.stringify(value).length / CHARS_PER_TOKEN);
}

function countMarkers(blocks: readonly MessagesBlock[]): number {
  let n = 0;
  for (const block of blocks) {
    if (block.cache_control !== undefined) n += 1;
    if (block.type === 'tool_result' && Array.isArray(block.content)) n += countMarkers(block.content as MessagesBlock[]);
  }
  return n;
}

/** The last block of `blocks` that may carry a marker, or undefined. */
function lastMarkable(blocks: readonly MessagesBlock[]): MessagesBlock | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) if (!UNMARKABLE.has(blocks[i].type)) return blocks[i];
  return undefined;
}

/**
 * Places Anthropic cache breakpoints on an encoded Messages request body, in place, for a
 * request converted from Chat or Responses (whose clients get automatic caching from OpenAI):
 * 1. the end of the stable prefix `tools` + `system` (the last system block, else the last tool),
 *    when that prefix is estimated at ≥ the model's minimum cacheable length (minCacheableTokens
 *    of `body.model`);
 * 2. the last block of the last message before the final user turn (the stable history), when
 *    the prefix up to it is estimated at ≥ that minimum.
 * Markers the body already has count toward the limit of 4; a spot already marked is left alone.
 */
export function placeCacheBreakpoints(body: Record<string, unknown>, minTokens = minCacheableTokens(String(body.model ?? ''))): void {
  const tools = Array.isArray(body.tools) ? (body.tools as MessagesBlock[]) : [];
  const messages = Array.isArray(body.messages) ? (body.messages as MessagesMessage[]) : [];
  if (typeof body.system === 'string') body.system = [{ type: 'text', text: body.system }];
  const system = Array.isArray(body.system) ? (body.system as MessagesBlock[]) : [];
  let budget = MAX_CACHE_BREAKPOINTS - countMarkers(tools) - countMarkers(system) - messages.reduce((n, m) => n + countMarkers(m.content), 0);
  const mark = (block: MessagesBlock | undefined): void => {
    if (!block || block.cache_control !== undefined || budget <= 0) return;
    block.cache_control = { ...EPHEMERAL };
    budget -= 1;
  };
  const prefixTokens = estimateTokens(tools) + estimateTokens(system);
  if (prefixTokens >= minTokens) mark(system.length > 0 ? system.at(-1) : tools.at(-1));
  // The final user turn is new; everything before it was sent on the previous turn too.
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser].role !== 'user') lastUser -= 1;
  const stable = lastUser - 1;
  if (stable >= 0 && prefixTokens + estimateTokens(messages.slice(0, stable + 1)) >= minTokens) mark(lastMarkable(messages[stable].content));
  // An unmarked lone system block reads best as a string again (as the encoder writes it).
  if (system.length === 1 && system[0].cache_control === undefined) body.system = system[0].text;
}
