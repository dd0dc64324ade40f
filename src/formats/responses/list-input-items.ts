import { isRecord } from '../shared/index.ts';

/** A page of `GET /v1/responses/{id}/input_items` (the openai SDK's `ResponseItemList`). */
export interface InputItemsPage {
  object: 'list';
  data: Record<string, unknown>[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** What the client asked for: OpenAI's cursor (`after` an item id), `limit` and `order` (default `desc`). */
export interface InputItemsQuery {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

/** The id prefix of an input item the gateway names, by its type (OpenAI's: `msg_…`, `fc_…`, `rs_…`). */
const ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/**
 * One input item as OpenAI lists it: typed (`type: "message"` for the easy form), a message's
 * string content as one `input_text` part (`output_text` for an assistant's), and an id. An item
 * the client sent without one is named from the response id and its place, so every read names
 * it the same.
 */
function listedItem(item: unknown, index: number, responseId: string): Record<string, unknown> | undefined {
  return asListedItem(item, (prefix) => `${prefix}_gw${responseId.replace(/^resp_/, '')}i${index}`);
}

/**
 * An input item in the shape OpenAI lists it (above), named by `nameOf` (given the prefix of its
 * type) when it has no id: a conversation's items are kept so (src/exchange/conversations.ts).
 * Undefined for what is not an item (neither typed nor a message).
 */
export function asListedItem(item: unknown, nameOf: (prefix: string) => string): Record<string, unknown> | undefined {
  if (!isRecord(item)) return undefined;
  const type = typeof item.type === 'string' ? item.type : 'role' in item ? 'message' : undefined;
  if (type === undefined) return undefined;
  const listed: Record<string, unknown> = { ...item, type };
  if (type === 'message' && typeof item.content === 'string') {
    listed.content = [item.role === 'assistant' ? { type: 'output_text', text: item.content, annotations: [] } : { type: 'input_text', text: item.content }];
  }
  if (typeof item.id !== 'string' || item.id === '') listed.id = nameOf((Object.hasOwn(ID_PREFIX, type) && ID_PREFIX[type]) || 'item');
  if (listed.status === undefined && (type === 'message' || type === 'function_call' || type === 'function_call_output')) listed.status = 'completed';
  return listed;
}

/** The input items of a stored Responses request (its history included), in the order sent. */
export function inputItemsOf(request: Record<string, unknown>, responseId: string): Record<string, unknown>[] {
  const input = request.input;
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  const out: Record<string, unknown>[] = [];
  items.forEach((item, index) => {
    const listed = listedItem(item, index, responseId);
    if (listed) out.push(listed);
  });
  return out;
}

/**
 * One page of the items: `after` an item id (an unknown one gives an empty page, as for files), at
 * most `limit`. An id listed twice (a client's own ids, kept before a conversation's were made
 * unique) is read at its last place, so each page starts past the one before and paging ends.
 */
export function pageInputItems(items: readonly Record<string, unknown>[], query: InputItemsQuery): InputItemsPage {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  const start = query.after === undefined ? 0 : ordered.findLastIndex((item) => item.id === query.after) + 1 || ordered.length;
  const data = ordered.slice(start, start + query.limit);
  return itemsList(data, start + data.length < ordered.length);
}

/** A page of items as OpenAI answers it (`ResponseItemList`, a conversation's `ConversationItemList`): the items and the ids of its ends. */
export function itemsList(data: Record<string, unknown>[], hasMore: boolean): InputItemsPage {
  const id = (item: Record<string, unknown> | undefined) => (typeof item?.id === 'string' ? item.id : null);
  return { object: 'list', data, first_id: id(data[0]), last_id: id(data.at(-1)), has_more: hasMore };
}
