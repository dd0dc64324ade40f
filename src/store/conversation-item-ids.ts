import type { ConversationItemInput } from './types.ts';

/**
 * Items to append with every id free: one the conversation holds already (`taken`) or an earlier
 * item of the same append took goes in as `rename` gives it (a new id). A conversation's ids name
 * one item each, so a list's `after` cursor never sends a client back to an earlier page.
 */
export function renameTakenIds(
  items: readonly ConversationItemInput[],
  taken: (id: string) => boolean,
  rename: (entry: ConversationItemInput) => ConversationItemInput,
): ConversationItemInput[] {
  const seen = new Set<string>();
  return items.map((entry) => {
    let out = entry;
    // A minted id is random: taken again only by a `rename` that does not rename.
    for (let tries = 0; (seen.has(out.id) || taken(out.id)) && tries < 8; tries += 1) out = rename(out);
    seen.add(out.id);
    return out;
  });
}
