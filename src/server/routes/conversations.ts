import type { H3Event } from 'h3';
import { GatewayError, validationError } from '../../errors/index.ts';
import { afterNotFound } from './after-not-found.ts';
import { itemsList } from '../../formats/index.ts';
import {
  checkResponsesQuota,
  conversationBounds,
  conversationFull,
  conversationNotFound,
  conversationView,
  mintConversationId,
  readConversationItems,
  readConversationMetadata,
  renamedItem,
} from '../../exchange/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { listOrder, listQuery } from './files.ts';
import type { RouteDef } from './types.ts';

/**
 * OpenAI's Conversations API (`client.conversations…`, the Agents SDK's OpenAIConversationsSession)
 * over the gateway's store: the caller's account's conversations only (another account's id is a
 * 404), their items as OpenAI lists them. A Responses request naming one reads it as its history
 * and adds its turn to it (src/exchange/stored-responses.ts). docs/api-decisions.md.
 */
export function conversationRoutes(deps: ServerDeps): RouteDef[] {
  const bounds = () => jsonBodyBounds(deps, bodyLimit(deps, 'inference'));
  const idOf = (event: H3Event) => event.context.params?.id ?? '';
  const itemIdOf = (event: H3Event) => event.context.params?.item_id ?? '';

  /** POST /v1/conversations {items?, metadata?} */
  const create = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const { body } = await readJsonObject(event, bounds());
    const metadata = readConversationMetadata(body.metadata) ?? {};
    const items = readConversationItems(body.items);
    const limits = conversationBounds(deps);
    const id = mintConversationId();
    if (items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0) > limits.maxBytes) throw conversationFull(id, limits);
    await checkResponsesQuota(deps, auth.account.id);
    const record = await deps.store.conversations.create({ id, accountId: auth.account.id, createdAt: deps.clock.now(), metadata }, items);
    return json(event, conversationView(record));
  };

  /** GET /v1/conversations/{id} */
  const retrieve = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = idOf(event);
    const record = await deps.store.conversations.get(auth.account.id, id);
    if (!record) throw conversationNotFound(id);
    return json(event, conversationView(record));
  };

  /** POST /v1/conversations/{id} {metadata}: replaces the metadata. */
  const update = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const { body } = await readJsonObject(event, bounds());
    const metadata = readConversationMetadata(body.metadata);
    if (metadata === undefined) throw new GatewayError('bad_request', "Missing required parameter: 'metadata'.", { details: { param: 'metadata', missing: ['metadata'] } });
    const id = idOf(event);
    const record = await deps.store.conversations.setMetadata(auth.account.id, id, metadata);
    if (!record) throw conversationNotFound(id);
    return json(event, conversationView(record));
  };

  /** DELETE /v1/conversations/{id}: the conversation and its items. */
  const remove = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = idOf(event);
    if (!(await deps.store.conversations.delete(auth.account.id, id))) throw conversationNotFound(id);
    return json(event, { id, object: 'conversation.deleted', deleted: true });
  };

  /**
   * GET /v1/conversations/{id}/items: `after`, `limit` (1–100, default 20), `order` (default `desc`);
   * `include` is checked (every item is listed whole). An `after` that is no item of the conversation
   * is a 404 naming it: as an empty page, a stale or mistyped cursor read as the list's end.
   */
  const listItems = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    checkInclude(event);
    const params = event.url.searchParams;
    const query = { ...listQuery(params, 100, 20), order: listOrder(params) };
    const id = idOf(event);
    const page = await deps.store.conversations.page(auth.account.id, id, query);
    if (!page) throw conversationNotFound(id);
    if (page === 'no_item') throw afterNotFound(query.after ?? '', `conversation '${id.slice(0, 200)}'`, 'an item the conversation holds');
    return json(event, itemsList(page.data, page.hasMore));
  };

  /** POST /v1/conversations/{id}/items {items}: 1 to 20, added at the end; answers the list of the items added (an id the conversation held already renamed). */
  const addItems = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    checkInclude(event);
    const { body } = await readJsonObject(event, bounds());
    if (!Array.isArray(body.items)) {
      if (body.items === undefined) throw new GatewayError('bad_request', "Missing required parameter: 'items'.", { details: { param: 'items', missing: ['items'] } });
      throw validationError({ items: 'must be an array of items' });
    }
    if (body.items.length === 0) throw emptyItems();
    const items = readConversationItems(body.items);
    const id = idOf(event);
    const limits = conversationBounds(deps);
    if (!(await deps.store.conversations.get(auth.account.id, id))) throw conversationNotFound(id);
    await checkResponsesQuota(deps, auth.account.id);
    // An item whose id the conversation holds already is added under a new one (the answer says which).
    const outcome = await deps.store.conversations.append(auth.account.id, id, items, limits, renamedItem);
    if (outcome === 'not_found') throw conversationNotFound(id);
    if (outcome === 'full') throw conversationFull(id, limits);
    const data = outcome.added.map((entry) => JSON.parse(entry.item) as Record<string, unknown>);
    return json(event, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
  };

  /** GET /v1/conversations/{id}/items/{item_id} */
  const retrieveItem = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    checkInclude(event);
    const id = idOf(event);
    const itemId = itemIdOf(event);
    const item = await deps.store.conversations.item(auth.account.id, id, itemId);
    if (item === 'not_found') throw conversationNotFound(id);
    if (item === 'no_item') throw itemNotFound(itemId);
    return json(event, item);
  };

  /** DELETE /v1/conversations/{id}/items/{item_id}: answers the conversation, as OpenAI does. */
  const removeItem = async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = idOf(event);
    const itemId = itemIdOf(event);
    const outcome = await deps.store.conversations.deleteItem(auth.account.id, id, itemId);
    if (outcome === 'not_found') throw conversationNotFound(id);
    if (outcome === 'no_item') throw itemNotFound(itemId);
    return json(event, conversationView(outcome));
  };

  return [
    { method: 'POST', path: '/v1/conversations', handler: create, format: 'responses' },
    { method: 'GET', path: '/v1/conversations/:id', handler: retrieve, format: 'responses' },
    { method: 'POST', path: '/v1/conversations/:id', handler: update, format: 'responses' },
    { method: 'DELETE', path: '/v1/conversations/:id', handler: remove, format: 'responses' },
    { method: 'GET', path: '/v1/conversations/:id/items', handler: listItems, format: 'responses' },
    { method: 'POST', path: '/v1/conversations/:id/items', handler: addItems, format: 'responses' },
    { method: 'GET', path: '/v1/conversations/:id/items/:item_id', handler: retrieveItem, format: 'responses' },
    { method: 'DELETE', path: '/v1/conversations/:id/items/:item_id', handler: removeItem, format: 'responses' },
  ];
}

/** OpenAI's `include` values (the openai SDK's ResponseIncludable), which the items routes take. */
const INCLUDABLE: readonly string[] = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
];

/**
 * `include` (`include=…` or the openai SDK's `include[]=…`, repeated) of the items routes: OpenAI's
 * values are taken and already met (items are kept and listed whole: every field a value names is
 * there when the item has it); any other is OpenAI's 400 naming `include`, as before it was
 * ignored and a typo read as granted.
 */
function checkInclude(event: H3Event): void {
  const params = event.url.searchParams;
  const values = [...params.getAll('include'), ...params.getAll('include[]')];
  const unknown = values.find((value) => !INCLUDABLE.includes(value));
  if (unknown === undefined) return;
  throw new GatewayError('bad_request', `Invalid value: '${unknown.slice(0, 100)}'. Supported values are: ${INCLUDABLE.map((value) => `'${value}'`).join(', ')}.`, {
    details: { param: 'include', value: unknown.slice(0, 100) },
  });
}

/**
 * `items: []` on items.create: OpenAI's 400 for an array under its minimum length, in its words
 * (its code, `empty_array`, is `details.reason`; `error.code` stays the spec's `bad_request`).
 */
function emptyItems(): GatewayError {
  return new GatewayError('bad_request', "Invalid 'items': empty array. Expected an array with minimum length 1, but got an empty array instead.", {
    details: { param: 'items', reason: 'empty_array' },
  });
}


function itemNotFound(itemId: string): GatewayError {
  return new GatewayError('not_found', `Item with id '${itemId.slice(0, 200)}' not found.`, { details: { id: itemId.slice(0, 200) } });
}
