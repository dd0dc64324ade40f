import { GatewayError, isGatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';
import type { ChatCall } from '../plugin-kit/index.ts';
import { isTransportError, mapTransportError, readBody, upstreamError, UpstreamHttpError, type UpstreamResponse, isUpstreamHttpError } from '../upstream/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { patchCall } from './patch-request.ts';
import { attachAbortWatch, FastAbortController, type AbortWatch } from '../util/index.ts';

/** An upstream response that answered 2xx. */
export interface UpstreamSuccess {
  response: UpstreamResponse;
  /** Aborts the upstream call (client gone, total timeout). */
  abort(reason?: unknown): void;
  /** Clears the total-time guard once the exchange is over. */
  done(): void;
  /** The call's abort (fired by the client leaving, the total timeout, or `abort`). */
  readonly watch: AbortWatch;
}

function onTotalTimeout(attempt: UpstreamAttempt, model: CatalogModel): void {
  attempt.abort(new GatewayError('provider_timeout', `The provider '${model.provider.id}' did not finish within ${model.provider.timeouts.total} ms.`));
}

/** One upstream call's abort wiring: the client leaving or the provider's total timeout aborts it; `done` unhooks both. */
export class UpstreamAttempt {
  readonly controller = new FastAbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly stopListening: () => void;

  constructor(model: CatalogModel, client: AbortWatch) {
    const controller = this.controller;
    this.stopListening = client.listen(() => controller.abort(new GatewayError('client_closed', 'The client closed the connection.')));
    this.timer = setTimeout(onTotalTimeout, model.provider.timeouts.total, this, model);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  done(): void {
    clearTimeout(this.timer);
    this.stopListening();
  }
}

/**
 * The call a plugin gets: its `signal` is made only when read. A plugin that hands the call to
 * the HTTP client as `abortOn: call` never makes one; the client listens to the attempt's
 * cheap watch instead.
 */
class UpstreamCall implements ChatCall {
  readonly format: ChatCall['format'];
  readonly body: ChatCall['body'];
  readonly rawBody: ChatCall['rawBody'];
  readonly model: string;
  readonly stream: boolean;
  readonly headers: ChatCall['headers'];
  readonly framing: ChatCall['framing'];

  constructor(
    call: Omit<ChatCall, 'signal'>,
    private readonly attempt: UpstreamAttempt,
  ) {
    this.format = call.format;
    this.body = call.body;
    this.rawBody = call.rawBody;
    this.model = call.model;
    this.stream = call.stream;
    this.headers = call.headers;
    // The upstream is asked for the framing the answer is read in (Gemini: `alt=sse` or a JSON array).
    this.framing = call.framing;
    attachAbortWatch(this, attempt.controller);
  }

  get signal(): AbortSignal {
    return this.attempt.signal;
  }
}

/** A 2xx answer with its attempt's controls. */
class Success implements UpstreamSuccess {
  constructor(
    readonly response: UpstreamResponse,
    private readonly attempt: UpstreamAttempt,
  ) {}

  get watch(): AbortWatch {
    return this.attempt.controller;
  }

  abort(reason?: unknown): void {
    this.attempt.abort(reason);
  }

  done(): void {
    this.attempt.done();
  }
}

/**
 * What a plugin's call threw, as a GatewayError: the one convention for chat and media. A
 * GatewayError (from any copy of the kit) stands; an UpstreamHttpError is read with the
 * format's error decoder (`format`: the call's; media calls use Chat's, the OpenAI error shape);
 * a network failure is a transport failure; anything else the plugin's own code threw is a
 * `provider_error` that says so (its message goes to the 'upstream call failed' log line, never to
 * the reply: it may hold an upstream URL or a key).
 */
export function mapPluginError(providerId: string, format: WireFormat, error: unknown, watch: AbortWatch | AbortSignal, phase: 'response' | 'media'): GatewayError {
  if (isGatewayError(error)) return error;
  if (isUpstreamHttpError(error)) {
    const said = getCodec(format).decodeError(error.status, error.body);
    return upstreamError(providerId, { ...said, status: error.status, headers: error.headers, phase });
  }
  if (watch.aborted || isTransportError(error)) return mapTransportError(error, watch, providerId);
  return new GatewayError('provider_error', `The provider '${providerId}' failed before answering: its plugin threw an error that is neither a network failure nor the provider's answer (the gateway's 'upstream call failed' log line names it).`, {
    cause: error,
    details: { provider: providerId },
  });
}

/**
 * Calls a provider's chat and returns its 2xx response, or throws the mapped GatewayError.
 * The total timeout and the client's abort both cancel the upstream call. Not async: the
 * plugin's own promise, one frame and one hop less on every request.
 */
export function callUpstream(
  model: CatalogModel,
  call: Omit<ChatCall, 'signal'>,
  client: AbortWatch,
  compact = false,
): Promise<UpstreamSuccess> {
  const instance = model.provider.instance;
  // A passed-through compact body goes to the provider's own compact route (prepareCall checked it has one).
  const chat = compact ? instance.compactResponses?.bind(instance) : instance.chat;
  if (!chat) return Promise.reject(new GatewayError('bad_request', `The model '${model.id}' does not support chat requests.`));
  // The plugin kit's promise: a plugin is called only with a format it declared.
  const plugin = model.provider.plugin;
  if (!(plugin.supportedFormats ?? plugin.formats).includes(call.format)) {
    return Promise.reject(new GatewayError('internal_error', `The provider '${model.provider.id}' was about to be called with format '${call.format}', which its plugin does not speak.`));
  }
  const patched = patchCall(instance, model.provider.id, 'chat', call);
  const tooLarge = overUpstreamLimit(model, patched.rawBody);
  if (tooLarge) return Promise.reject(tooLarge);
  const attempt = new UpstreamAttempt(model, client);
  let calling: Promise<UpstreamResponse>;
  try {
    calling = Promise.resolve(chat(new UpstreamCall(patched, attempt)));
  } catch (error) {
    calling = Promise.reject(error);
  }
  return calling.then(
    (response) => (response.status >= 200 && response.status < 300 ? new Success(response, attempt) : refusal(model, call.format, response, attempt)),
    (error: unknown) => {
      attempt.done();
      throw mapPluginError(model.provider.id, call.format, error, attempt.controller, 'response');
    },
  );
}

/**
 * The 413 of a body larger than the upstream takes (`maxRequestBytes`: what its API documents, or
 * the config's), before it is sent: the upstream would refuse it only after the whole upload (a
 * prompt naming large uploaded files, carried inline, is easily 75 MB). Counted from the string's
 * length first: UTF-8 bytes are at least its length and at most three times it.
 */
export function overUpstreamLimit(model: CatalogModel, rawBody: string): GatewayError | undefined {
  const limit = model.provider.maxRequestBytes;
  if (limit === undefined || rawBody.length * 3 <= limit) return undefined;
  const bytes = rawBody.length > limit ? rawBody.length : Buffer.byteLength(rawBody);
  if (bytes <= limit) return undefined;
  const id = model.provider.id;
  return new GatewayError(
    'request_too_large',
    `The request is ${bytes} bytes or more as sent to the provider '${id}', which takes at most ${limit} (providers.${id}.maxRequestBytes): send a smaller request (a shorter prompt or history, fewer or smaller files named in it), or use a model whose provider takes more.`,
    { details: { provider: id, limit_bytes: limit } },
  );
}

/** The most bytes of an error answer read: past it the error is told by its status alone. */
const MAX_ERROR_BYTES = 1024 * 1024;

/** A non-2xx answer, read and thrown as the format's error. */
async function refusal(model: CatalogModel, format: WireFormat, response: UpstreamResponse, attempt: UpstreamAttempt): Promise<never> {
  try {
    const text = (await readBody(response.body, MAX_ERROR_BYTES).catch((error: unknown) => (isGatewayError(error) && error.details?.limit_bytes === MAX_ERROR_BYTES ? Buffer.alloc(0) : Promise.reject(error)))).toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    const said = getCodec(format).decodeError(response.status, parsed);
    throw upstreamError(model.provider.id, { ...said, status: response.status, headers: response.headers, phase: 'response' });
  } catch (error) {
    throw isGatewayError(error) ? error : mapTransportError(error, attempt.controller);
  } finally {
    attempt.done();
  }
}
