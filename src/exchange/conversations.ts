import { randomBytes } from 'node:crypto';
import { GatewayError, isGatewayError, renameFields, validationError } from '../errors/index.ts';
import { asListedItem, conversationIdOf, getCodec, hasHistoryForm, prependHistory } from '../formats/index.ts';
import type { ChatRequest, Message } from '../ir/index.ts';
import type { ConversationBounds, ConversationItemInput, ConversationRecord, ConversationTurn } from '../store/index.ts';
import type { ExchangeAnswer, ExchangeDeps } from './types.ts';

/**
 * OpenAI's Conversations API over the gateway's store (docs/api-decisions.md): a conversation is
 * the account's list of Responses items, read as the history of a Responses request naming it
 * and extended with that request's input and output when it succeeds.
 */
export const CONVERSATION_LIMITS = {
  /** Items one conversation holds at most (OpenAI documents none; the whole list is the next request's history). */
  items: 10_000,
  /** Items one `items` array adds (create, or POST …/items), as OpenAI bounds it. */
  itemsPerCall: 20,
  metadataKeys: 16,
  metadataKeyChars: 64,
  metadataValueChars: 512,
} as const;

type ConversationDeps = Pick<ExchangeDeps, 'store' | 'config'>;

/**
 * How long a turn's hold on a shared database lasts unless renewed: an instance that died holding
 * it blocks the conversation this long at most; a live one renews it every third of it.
 */
export const TURN_LEASE_MS = 30_000;

/**
 * Claims `id` for one turn (a Responses request naming it) until the returned release is called
 * (it resolves once the hold is given back, so a client that sees its turn end finds it free):
 * the turn reads the conversation's items as its history and adds its own when answered, so a
 * second turn at once would read the same history and one of the two would be lost from the
 * other's. A second is refused, as OpenAI refuses it ("Another process is currently operating on
 * this conversation"), with the spec's 409 `conflict` (the SDKs retry it after `Retry-After`).
 * The hold is the store's: in this process on the file store, a lease every instance sees on
 * PostgreSQL, renewed here while the turn runs (docs/api-decisions.md).
 */
async function claimConversationTurn(deps: Pick<ExchangeDeps, 'store' | 'log'>, accountId: string, id: string): Promise<() => Promise<void>> {
  const turn = await deps.store.conversations.claimTurn(accountId, id, TURN_LEASE_MS);
  if (turn === 'busy') {
    throw new GatewayError('conflict', `Another process is currently operating on this conversation. Please retry in a few seconds. (A response to conversation '${id.slice(0, 200)}' is still running; one turn at a time.)`, {
      details: { param: 'conversation', conversation: id.slice(0, 200), reason: 'conversation_locked' },
      retryAfter: 1,
    });
  }
  const renewing = turn.renew && setInterval(() => void renewTurn(deps, turn, id), TURN_LEASE_MS / 3);
  if (renewing) renewing.unref();
  let released: Promise<void> | undefined;
  // Once, whoever calls it first (the turn added, the answer's end, a failure); never rejects.
  return () => {
    if (renewing) clearInterval(renewing);
    released ??= turn.release().catch((error: unknown) => deps.log.warn('could not give back a conversation turn; it lapses by itself', { conversation: id, error: String(error) }));
    return released;
  };
}

/**
 * A turn of a conversation holds it from reading its history until the turn is added (or the
 * answer fails): one at a time. The hold is given back before the client sees the turn end (the
 * stored turn gives it back before a stream's last event; a whole answer, a failure, once known),
 * so a client's next turn, on any instance, finds it free; a stream that fails part-way, once settled.
 */
export async function asConversationTurn(
  deps: Pick<ExchangeDeps, 'store' | 'log'>,
  accountId: string,
  body: Record<string, unknown>,
  conversationId: string,
  answer: (release: () => Promise<void>) => Promise<ExchangeAnswer>,
): Promise<ExchangeAnswer> {
  checkTurnInput(body.input);
  const release = await claimConversationTurn(deps, accountId, conversationId);
  let answered: ExchangeAnswer;
  try {
    answered = await answer(release);
  } catch (error) {
    await release();
    throw error;
  }
  if (!answered.stream) await release();
  else void answered.settled.then(release, release);
  return answered;
}

/** One renewal of a running turn's lease; a lost one is logged (the turn goes on, its items are still added in one append). */
async function renewTurn(deps: Pick<ExchangeDeps, 'log'>, turn: ConversationTurn, id: string): Promise<void> {
  try {
    if (await turn.renew!()) return;
    deps.log.warn('a conversation turn lost its hold (it lapsed and another turn took it, or the conversation was deleted)', { conversation: id });
  } catch (error) {
    deps.log.warn('could not renew a conversation turn; it lapses unless a later renewal reaches the store', { conversation: id, error: String(error) });
  }
}

/** A conversation's id: minted here, random. */
export function mintConversationId(): string {
  return `conv_${randomBytes(24).toString('hex')}`;
}

/** No conversation under `id` for this account (another account's id is the same as a missing one). */
export function conversationNotFound(id: string, param?: string): GatewayError {
  return new GatewayError('not_found', `Conversation with id '${id.slice(0, 200)}' not found.`, { details: param ? { param, id: id.slice(0, 200) } : { id: id.slice(0, 200) } });
}

/** The conversation as OpenAI answers it (`created_at` in seconds). */
export function conversationView(record: ConversationRecord): Record<string, unknown> {
  return { id: record.id, object: 'conversation', created_at: Math.floor(record.createdAt / 1000), metadata: record.metadata };
}

/** The bounds of a conversation: its items, and their bytes (they become a request: `server.bodyLimits.inference`). */
export function conversationBounds(deps: ConversationDeps): ConversationBounds {
  return { maxItems: CONVERSATION_LIMITS.items, maxBytes: deps.config.server.bodyLimits.inference };
}

/** The refusal of items that would take a conversation past its bounds. */
export function conversationFull(id: string, bounds: ConversationBounds): GatewayError {
  return new GatewayError(
    'bad_request',
    `Conversation '${id}' cannot take these items: a conversation holds at most ${bounds.maxItems} items and ${bounds.maxBytes} bytes of them (server.bodyLimits.inference). Delete items or start a new conversation.`,
    { details: { param: 'items', max_items: bounds.maxItems, max_bytes: bounds.maxBytes } },
  );
}

/** The refusal of a turn on a conversation that holds as many items as a conversation may: it names `conversation` (a Responses request has no `items`). */
function conversationFullForTurn(id: string, bounds: ConversationBounds, held: number): GatewayError {
  return new GatewayError(
    'bad_request',
    `Conversation '${id}' is full: it holds ${held} items (a conversation holds at most ${bounds.maxItems}), so it takes no further turn. Delete items or start a new conversation.`,
    { details: { param: 'conversation', max_items: bounds.maxItems, max_bytes: bounds.maxBytes } },
  );
}

/** `metadata`: up to 16 string values under keys of up to 64 characters, values up to 512 (OpenAI's bounds); null or absent is none. */
export function readConversationMetadata(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw validationError({ metadata: 'must be an object of string values' });
  const entries = Object.entries(value);
  if (entries.length > CONVERSATION_LIMITS.metadataKeys) throw validationError({ metadata: `may have at most ${CONVERSATION_LIMITS.metadataKeys} keys` });
  for (const [key, entry] of entries) {
    if (key.length > CONVERSATION_LIMITS.metadataKeyChars) throw validationError({ metadata: `keys may be at most ${CONVERSATION_LIMITS.metadataKeyChars} characters` });
    if (typeof entry !== 'string') throw validationError({ [`metadata.${key}`]: 'must be a string' });
    if (entry.length > CONVERSATION_LIMITS.metadataValueChars) throw validationError({ [`metadata.${key}`]: `may be at most ${CONVERSATION_LIMITS.metadataValueChars} characters` });
  }
  // Made as own properties: an assignment of '__proto__' would set the prototype and drop the key.
  return Object.fromEntries(entries) as Record<string, string>;
}

/** An id the gateway names an item with, by its type's prefix (`msg_…`, `fc_…`). */
function mintItemId(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}

const SAFE_ITEM_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** The prefix of an item id (`msg` of `msg_…`), `item` when it has none. */
function prefixOf(id: string): string {
  return /^([A-Za-z]{1,16})_/.exec(id)?.[1] ?? 'item';
}

/**
 * The item under a new id of its prefix (`msg_…`): what an append gives the store for an item whose
 * id the conversation holds already, so every id names one item and a list's `after` cursor moves on.
 */
export function renamedItem(entry: ConversationItemInput): ConversationItemInput {
  const item = JSON.parse(entry.item) as Record<string, unknown>;
  const id = mintItemId(prefixOf(entry.id));
  item.id = id;
  return { id, item: JSON.stringify(item) };
}

/**
 * Items to add to a conversation (`items` of create and POST …/items): an array of Responses input
 * items, at most `CONVERSATION_LIMITS.itemsPerCall`, each read as a Responses input is (a 422 names
 * what is wrong) and kept in the shape OpenAI lists it: typed, string content as one part, an id
 * (the client's, else one minted here), a status.
 */
export function readConversationItems(value: unknown, field = 'items'): ConversationItemInput[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw validationError({ [field]: 'must be an array of items' });
  if (value.length > CONVERSATION_LIMITS.itemsPerCall) throw validationError({ [field]: `may hold at most ${CONVERSATION_LIMITS.itemsPerCall} items; add more in further calls` });
  return itemsToKeep(value, field);
}

/** Items as kept (validated as a Responses input, with their listed shape and ids, each id once), in order. */
function itemsToKeep(items: readonly unknown[], field: string): ConversationItemInput[] {
  const ids = new Set<string>();
  const listed = items.map((item, index) => {
    const kept = asListedItem(item, mintItemId);
    if (!kept) throw validationError({ [`${field}[${index}]`]: 'must be an input item (an object with a type, or a message with a role)' });
    if (kept.type === 'item_reference') throw validationError({ [`${field}[${index}]`]: 'an item_reference cannot be kept in a conversation; send the item itself' });
    if (!hasHistoryForm(kept)) throw formlessItem(kept, `${field}[${index}]`);
    if (typeof kept.id !== 'string' || !SAFE_ITEM_ID.test(kept.id)) kept.id = mintItemId('item');
    // An id given twice in one call names two items: the later one gets its own (as an id the conversation holds does: renamedItem).
    if (ids.has(kept.id as string)) kept.id = mintItemId(prefixOf(kept.id as string));
    ids.add(kept.id as string);
    return kept;
  });
  // Read as a Responses input is: a conversation's items are the next request's history, so one that cannot be read is refused now.
  // What has no IR form (a role such as `wizard`) would be left out of every later turn's history: refused now, as OpenAI refuses the role.
  let decoded: ReturnType<typeof decodeItems>;
  try {
    decoded = decodeItems(listed);
  } catch (error) {
    // Named as the client sent them (`items[1].content`), not as the Responses input they are read as.
    throw isGatewayError(error) ? renameFields(error, (path) => (/^input(?=$|[[.])/.test(path) ? path.replace(/^input/, field) : undefined)) : error;
  }
  const first = decoded.unconvertible?.[0];
  if (first) throw validationError({ [first.field.replace(/^input/, field)]: `${first.message}; a conversation's items are the history of a request to any model` });
  return listed.map((item) => ({ id: item.id as string, item: JSON.stringify(item) }));
}

/**
 * The refusal of an item a conversation would keep and then leave out of every later turn: its
 * items are read back as the history of a request to any model, through the gateway's common form,
 * which has none for a hosted-tool item only OpenAI runs (`file_search_call`, `computer_call`,
 * `mcp_call`, …), an `image_generation_call` without its image, or a type nobody knows.
 */
function formlessItem(item: Record<string, unknown>, at: string): GatewayError {
  const type = typeof item.type === 'string' ? item.type.slice(0, 100) : 'item';
  return validationError(
    { [`${at}.type`]: `'${type}' items cannot be kept in a conversation: a conversation's items are the history of a request to any model, and this one has no form in it; send what it produced as a message` },
    `Invalid value: '${type}' at '${at}.type': a conversation keeps messages, function, custom, shell and apply_patch calls and their outputs, reasoning, web_search_call and image_generation_call (with its result) items; send what this item produced as a message.`,
  );
}

/**
 * A conversation turn's own input (`input` of a Responses request naming a conversation), checked
 * before any upstream call as `items.create` checks items: the turn is added to the conversation,
 * so what would be kept and never read back again (formlessItem) is refused now.
 */
export function checkTurnInput(input: unknown): void {
  if (!Array.isArray(input)) return;
  input.forEach((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return;
    const kept = item as Record<string, unknown>;
    if (kept.type === 'item_reference') return;
    if (!hasHistoryForm(kept)) throw formlessItem(kept, `input[${index}]`);
  });
}

/** Responses items read as a request's input (earlier turns may hold the calls their outputs answer): its IR messages, and what has no IR form. */
function decodeItems(items: readonly Record<string, unknown>[]): Pick<ChatRequest, 'messages' | 'unconvertible'> {
  if (items.length === 0) return { messages: [] };
  return getCodec('responses').decodeRequest({ model: 'conversation', input: items, conversation: 'conversation' });
}

/** A conversation's items as the IR history of a request naming it; 404 (`param: conversation`) when the account has no such conversation. */
export async function conversationHistory(deps: ConversationDeps, accountId: string, id: string): Promise<Message[]> {
  const items = await deps.store.conversations.items(accountId, id);
  if (!items) throw conversationNotFound(id, 'conversation');
  // A full conversation takes no further turn (the turn's items are added whatever their number: the request already fit).
  const bounds = conversationBounds(deps);
  if (items.length >= bounds.maxItems) throw conversationFullForTurn(id, bounds, items.length);
  return decodeItems(items).messages;
}

/**
 * What a Responses request adds to its conversation when it succeeds: its input items (as
 * listed), then the response's output items, as JSON texts with their ids.
 */
export function turnItems(input: unknown, output: unknown): ConversationItemInput[] {
  const given = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  const out: ConversationItemInput[] = [];
  for (const item of [...given, ...(Array.isArray(output) ? output : [])]) {
    const kept = asListedItem(item, mintItemId);
    if (!kept || kept.type === 'item_reference') continue;
    if (typeof kept.id !== 'string' || !SAFE_ITEM_ID.test(kept.id)) kept.id = mintItemId('item');
    out.push({ id: kept.id as string, item: JSON.stringify(kept) });
  }
  return out;
}

/**
 * A Responses body naming a conversation as counted (`POST /v1/responses/input_tokens`, which
 * OpenAI counts with the conversation's items): its history in front of its input, `conversation`
 * gone (the id is the gateway's, never an upstream's). The body as it is when it names none; 404
 * for an id the account does not have, as on /v1/responses.
 */
export async function withConversationHistory(deps: ConversationDeps, accountId: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = conversationIdOf(body);
  if (id === undefined) return body;
  const history = await conversationHistory(deps, accountId, id);
  const codec = getCodec('responses');
  const request = prependHistory(codec.decodeRequest(body), history);
  return codec.encodeRequest(request, { upstreamModel: request.model });
}
