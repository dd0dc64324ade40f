import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/index.ts';
import { prependHistory, responseToHistory } from '../formats/index.ts';
import type { ChatRequest, ChatResponse, Message, StreamPart } from '../ir/index.ts';
import { conversationHistory, renamedItem, turnItems } from './conversations.ts';
import type { ResponseCapture } from '../pipeline/index.ts';
import { ResponseCollector } from '../responses-store/index.ts';
import { recordNotWritten } from '../store/index.ts';
import type { ExchangeDeps } from './types.ts';

type StoreDeps = Pick<ExchangeDeps, 'store' | 'config' | 'log' | 'clock' | 'guards'>;

/** A conversation's turn to add once answered: the conversation, the request's own input, and what gives the turn's hold back. */
interface TurnToAdd {
  id: string;
  input: unknown;
  release?: () => Promise<void>;
}

/** No stored response under `id` for this account (another account's id is the same as a missing one). */
export function storedResponseNotFound(id: string): GatewayError {
  return new GatewayError('not_found', `No stored response with id '${id}'.`, { details: { id } });
}

/** A Responses request with its stored history prepended: the IR, and the body and text that go upstream. */
export interface RehydratedRequest {
  request: ChatRequest;
  body: Record<string, unknown>;
  raw: string;
}

/**
 * `previous_response_id`: rebuilds the history from the caller's stored chain and rewrites the
 * inbound body as a self-contained request, so it can go to any upstream format (pitfall 10/11).
 * Undefined when the request names no previous response. A compact body (`compactBody`, POST
 * /v1/responses/compact) keeps its own fields, the rebuilt `input` in place of the id: that
 * route takes none of a response's others (`stream`, `store`…), which OpenAI refuses there.
 */
export async function rehydrateResponsesRequest(
  deps: StoreDeps,
  request: ChatRequest,
  accountId: string,
  compactBody?: Record<string, unknown>,
  conversationId?: string,
): Promise<RehydratedRequest | undefined> {
  const previousId = request.previousResponseId;
  const codec = getCodec('responses');
  let history: Message[];
  if (conversationId !== undefined) {
    // `conversation`: the conversation's items are the history (the input and output are added to it once answered).
    history = await conversationHistory(deps, accountId, conversationId);
  } else {
    if (!previousId) return undefined;
    const stored = await deps.store.responses.get(accountId, previousId);
    if (!stored) throw storedResponseNotFound(previousId);
    try {
      history = responseToHistory(codec.decodeRequest(stored.request), codec.decodeResponse(stored.response));
    } catch (error) {
      deps.log.warn('a stored response could not be read back', { id: previousId, error: String(error) });
      throw storedResponseNotFound(previousId);
    }
  }
  const next = prependHistory(request, history);
  const encoded = codec.encodeRequest(next, { upstreamModel: next.model });
  const body = compactBody ? { ...withoutKey(withoutKey(compactBody, 'previous_response_id'), 'conversation'), input: encoded.input } : encoded;
  const raw = JSON.stringify(body);
  // The rebuilt request is bounded like a body sent whole (and like the stored record it becomes).
  const limit = deps.config.server.bodyLimits.inference;
  if (overBytes(raw, limit)) {
    const source = conversationId !== undefined ? `conversation '${conversationId}'` : `previous_response_id '${previousId}'`;
    throw new GatewayError(
      'request_too_large',
      `The conversation rebuilt from ${source} exceeds the limit of ${limit} bytes for a request; start a new conversation or send a shorter history yourself.`,
      // `param` names the field whose history is too long (the envelope's param), as the conversation's 409 and full 400 do.
      {
        details:
          conversationId !== undefined
            ? { param: 'conversation', limit_bytes: limit, conversation: conversationId }
            : { param: 'previous_response_id', limit_bytes: limit, previous_response_id: previousId },
      },
    );
  }
  return { request: next, body, raw };
}

function withoutKey(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = body;
  return rest;
}

/** True when `text` is more than `limit` bytes of UTF-8 (counted only when it could be). */
function overBytes(text: string, limit: number): boolean {
  return text.length * 3 > limit && Buffer.byteLength(text) > limit;
}

/**
 * A stored response's id: minted here, random, never derived from the upstream's id (two
 * upstream answers may share one, e.g. a mock that hashes the messages, or two providers).
 */
export function mintResponseId(): string {
  return `resp_${randomBytes(24).toString('hex')}`;
}

/**
 * Part of a streamed answer to keep: a complete one (finished, not failed) is saved when its `end`
 * comes. What it collects is bounded by the stored record's limit (`server.bodyLimits.inference`):
 * past it the collected parts are dropped and the answer is relayed on, unstored. Nothing here
 * ever throws into the relay, so keeping a copy can never fail the answer or count against its
 * upstream.
 */
export class StoredResponseCapture implements ResponseCapture {
  /** The id the client sees and the response is stored under. */
  readonly id = mintResponseId();
  private collector: ResponseCollector | undefined = new ResponseCollector();
  private finished = false;
  /** Why the answer is not stored (too large, unreadable), once known. */
  notStored: string | undefined;
  /** The save in progress, if any (the answer's last bytes wait for it). */
  saving: Promise<void> | undefined;
  /**
   * Why the turn of the conversation the request names cannot be added (an answer too large to
   * keep, or one the gateway could not read back): a stream's end is this error instead of its
   * completion, a whole answer is this error.
   */
  turnRefusal: GatewayError | undefined;
  /** The client got the answer (a stream, relayed as it came) though its turn was refused: it is charged. */
  turnRefusalCharged = false;
  /** The answer is past what can be kept for its conversation: only its end is watched for, to refuse the turn there. */
  private watchingEnd = false;

  constructor(
    private readonly deps: StoreDeps,
    private readonly request: ChatRequest,
    private readonly accountId: string,
    /** The Responses request as sent upstream (history already prepended), JSON text. */
    private readonly requestText: string,
    /** The conversation the request names, its own input (added to it with the output once answered), and what gives its hold back once added. */
    private readonly conversation?: TurnToAdd,
  ) {}

  response(response: ChatResponse): void {
    this.save(response);
  }

  part(part: StreamPart): boolean {
    if (this.watchingEnd) return this.watchEnd(part);
    const collector = this.collector;
    if (!collector) return false;
    if (part.type === 'error') {
      // A failed answer is never stored: its copy goes now.
      this.collector = undefined;
      this.notStored = 'failed';
      return false;
    }
    try {
      collector.push(part);
    } catch (error) {
      this.drop('unreadable', { error: String(error) });
      this.refuseUnreadTurn();
      return false;
    }
    // Characters are a lower bound of the record's bytes: past the limit it can never be stored.
    // A conversation's turn is kept whatever the stored record's size, as a whole answer's is: its
    // answer alone is bounded (the collector's memory), and past that the turn is refused at the end.
    if (this.conversation ? collector.chars > this.limit : collector.chars + this.requestText.length > this.limit) {
      this.drop('too_large', { limit_bytes: this.limit });
      if (!this.conversation) return false;
      this.watchingEnd = true;
      if (part.type === 'finish') this.finished = true;
      return true;
    }
    if (part.type === 'finish') this.finished = true;
    else if (part.type === 'end' && this.finished && !collector.failed) {
      this.collector = undefined;
      this.save(collector.result());
    }
    return true;
  }

  /**
   * An answer too large to add to its conversation, at its end: the turn is refused there (the
   * answer's end waits for `saving`, which fails with the refusal: the client gets it in place of
   * the completion), the conversation unchanged. A stream that failed meanwhile ends as it is.
   */
  private watchEnd(part: StreamPart): boolean {
    if (part.type === 'error') {
      this.watchingEnd = false;
      return false;
    }
    if (part.type === 'finish') this.finished = true;
    if (part.type !== 'end') return true;
    this.watchingEnd = false;
    if (!this.finished || !this.conversation) return false;
    const id = this.conversation.id;
    const refusal = new GatewayError(
      'request_too_large',
      `The answer is too large to add to conversation '${id}': over ${this.limit} bytes (server.bodyLimits.inference), more than a conversation holds. It was relayed whole but is not kept; the conversation is unchanged. Ask for a shorter answer or send it without the conversation.`,
      { details: { conversation: id, limit_bytes: this.limit } },
    );
    this.deps.log.warn('an answer too large for its conversation ends with an error; the turn is not added', { id: this.id, conversation: id, limit_bytes: this.limit });
    this.refuseTurn(refusal);
    return false;
  }

  /**
   * The turn is not added, and the client is told: the answer's end (a stream's next bytes, or a
   * whole answer) waits for `saving`, which fails with the refusal.
   */
  private refuseTurn(refusal: GatewayError): void {
    this.turnRefusal = refusal;
    this.turnRefusalCharged = this.request.stream;
    const saving = Promise.reject(refusal);
    saving.catch(() => undefined);
    this.saving = saving;
  }

  /**
   * An answer the gateway could not read back as IR cannot be added to the conversation the
   * request names (nothing of it would be kept): said at once, as a 502 in place of a whole answer
   * (not charged) or an error ending the stream there (charged: what went out went). Without a
   * conversation the answer is served unstored, as before.
   */
  private refuseUnreadTurn(): void {
    if (!this.conversation || this.turnRefusal) return;
    this.watchingEnd = false;
    const id = this.conversation.id;
    this.deps.log.warn('an answer that could not be read back ends with an error; the turn is not added to its conversation', { id: this.id, conversation: id });
    this.refuseTurn(
      new GatewayError(
        'provider_error',
        `The upstream's answer could not be read to add it to conversation '${id}' (it is not in the shape its format documents), so the turn is not kept; the conversation is unchanged. Send the turn again.`,
        { details: { conversation: id } },
      ),
    );
  }

  /** The turn (the request's input, the answer's output) at the end of its conversation; gone meanwhile (deleted), nothing is added. */
  private async appendTurn(conversation: TurnToAdd, output: unknown): Promise<void> {
    const outcome = await this.deps.store.conversations.append(this.accountId, conversation.id, turnItems(conversation.input, output), undefined, renamedItem);
    if (outcome === 'not_found') this.deps.log.warn('a conversation was deleted while a response to it ran; the turn is not added', { id: this.id, conversation: conversation.id });
    // Before the answer's end goes out (it waits for this): the client's next turn finds the conversation free.
    await conversation.release?.();
  }

  unreadable(error: unknown): void {
    this.collector = undefined;
    this.notStored = 'unreadable';
    this.deps.log.warn('could not store a response', { error: String(error) });
    this.refuseUnreadTurn();
  }

  private get limit(): number {
    return this.deps.config.server.bodyLimits.inference;
  }

  /** Stops collecting (its memory goes at once) and says why, once. */
  private drop(reason: string, fields: Record<string, unknown>): void {
    this.collector = undefined;
    this.notStored = reason;
    this.deps.log.warn('a streamed response is not stored; it is relayed whole, but GET and previous_response_id will not find it', { id: this.id, reason, ...fields });
  }

  /** Stored under the gateway's id (the one the client saw), for previous_response_id and GET; the turn added to its conversation. */
  private save(response: ChatResponse): void {
    const id = this.id;
    const encoded = getCodec('responses').encodeResponse({ ...response, id }, this.request);
    const text = JSON.stringify(encoded);
    const { deps } = this;
    const appending = this.conversation && this.appendTurn(this.conversation, encoded.output);
    // A record is bounded like a request body: the request part is (above), an answer can still tip it over.
    const limit = this.limit;
    let stored: Promise<void> | undefined;
    if (this.request.store === false) {
      this.notStored = 'store_false';
    } else if ((this.requestText.length + text.length) * 3 > limit && Buffer.byteLength(this.requestText) + Buffer.byteLength(text) > limit) {
      this.notStored = 'too_large';
      deps.log.warn('a response is too large to store; GET and previous_response_id will not find it', { id, limit_bytes: limit });
    } else {
      stored = deps.store.responses.save({ id, accountId: this.accountId, createdAt: deps.clock.now(), request: this.requestText, response: text });
    }
    if (!stored && !appending) return;
    const saving = Promise.all([stored, appending])
      .then(() => undefined)
      .catch((error: unknown) => {
        // Its id must not be sent for a response that is not stored: the answer fails (503) instead.
        deps.log.error('could not store a response; the answer fails instead of naming it', { id, error: String(error) });
        deps.guards.storage?.failed(error, 'a stored response');
        throw recordNotWritten(error, 'stored response');
      });
    // The answer's end waits for it; a failed save stays pending-and-failed so the end is never sent. Handled here too: nobody may be waiting.
    saving.then(
      () => {
        if (this.saving === saving) this.saving = undefined;
      },
      () => undefined,
    );
    this.saving = saving;
  }
}

/**
 * Keeps the response the client will see (unless `store: false`): the pipeline hands it over
 * as IR, whole or part by part through the relay's part tap, so no byte is read twice.
 */
export function captureResponses(deps: StoreDeps, request: ChatRequest, accountId: string, requestText: string, conversation?: TurnToAdd): StoredResponseCapture | undefined {
  if (request.store === false && !conversation) return undefined;
  return new StoredResponseCapture(deps, request, accountId, requestText, conversation);
}

/**
 * `storage.responsesQuotaBytes`: an account whose stored Responses and conversations already take
 * the quota gets 429 `quota_exceeded` for a new stored request or a conversation's new items,
 * before any upstream call (`store: false` without a conversation still passes). The figures are
 * the store's running counts, not a scan.
 */
export async function checkResponsesQuota(deps: Pick<ExchangeDeps, 'store' | 'config'>, accountId: string): Promise<void> {
  const quota = deps.config.storage.responsesQuotaBytes;
  const [responses, conversations] = await Promise.all([deps.store.responses.bytesOf(accountId), deps.store.conversations.bytesOf(accountId)]);
  const used = responses + conversations;
  if (used < quota) return;
  throw new GatewayError(
    'quota_exceeded',
    `The account's stored Responses and conversations may take ${quota} bytes (storage.responsesQuotaBytes); ${used} are in use. Delete stored responses or conversations, or send store: false without a conversation.`,
    { details: { limit: 'storage.responsesQuotaBytes', quota_bytes: quota, used_bytes: used } },
  );
}
