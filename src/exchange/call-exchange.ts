import type { Admission } from '../accounts/index.ts';
import type { RequestIds } from '../errors/index.ts';
import type { RouteTarget } from '../formats/index.ts';
import type { ChatRequest, ChatResponse, WireFormat } from '../ir/index.ts';
import type { AttemptObserver } from '../observability/index.ts';
import { cutAtStop, decodeInbound, prepareCall, readInbound, restoreToolNames, type ChatExchange, type ToolNames, type InboundRequest, type ResponseCapture, type Settlement } from '../pipeline/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { FastAbortController, type AbortWatch } from '../util/index.ts';
import type { ExchangeCall } from './types.ts';

const NO_HEADERS: Record<string, string> = {};

/** A watch that never fires, for a call nobody can walk away from (one per call: listeners are not shared). */
export const noClient = (): AbortWatch => new FastAbortController();

/**
 * The pipeline's view of one call: built once from the transport-free call, never changed by
 * anyone but its owner (runExchange sets the capture and the settlement channel before running).
 */
export class CallExchange implements ChatExchange {
  readonly format: WireFormat;
  readonly target: RouteTarget | undefined;
  readonly forwardHeaders: Record<string, string>;
  readonly gatewayEvents: string | undefined;
  readonly sessionId: string | undefined;
  readonly ids: RequestIds;
  readonly client: AbortWatch;
  readonly attempts: AttemptObserver | undefined;
  readonly compact: boolean | undefined;
  capture: ResponseCapture | undefined = undefined;
  responseId: string | undefined = undefined;
  previousResponseId: string | undefined = undefined;
  conversationId: string | undefined = undefined;
  onSettled: ((settlement: Settlement) => void) | undefined = undefined;

  constructor(
    call: ExchangeCall,
    readonly body: Record<string, unknown>,
    readonly raw: string,
  ) {
    this.format = call.format;
    this.target = call.target;
    this.forwardHeaders = call.forwardHeaders ?? NO_HEADERS;
    this.gatewayEvents = call.gatewayEvents;
    this.sessionId = call.sessionId;
    this.ids = call.ids;
    this.client = call.client ?? noClient();
    this.attempts = call.record;
    this.compact = call.compact;
  }

  get signal(): AbortSignal {
    return this.client.signal;
  }
}

/** The call's body text: as received, or (a line of a batch file, already parsed) its JSON. */
export function rawOf(call: Pick<ExchangeCall, 'raw' | 'body'>): string {
  return call.raw ?? JSON.stringify(call.body);
}

/** What decoding and encoding read of a call: its format and body. */
export type CallBody = Pick<ExchangeCall, 'format' | 'target' | 'body' | 'raw' | 'forwardHeaders'>;

/**
 * Reads what billing and routing need of the call's body (model, stream, bounds, session keys,
 * vendor tools) without decoding it into the IR; the pipeline decodes it when a conversion needs it.
 */
export function readCall(call: CallBody, decoded?: ChatRequest): InboundRequest {
  return readInbound({ format: call.format, target: call.target, body: call.body, raw: rawOf(call) }, decoded);
}

/** Decodes and validates the call's body into the IR (the one decode step outside the pipeline). */
export function decodeCall(call: CallBody): ChatRequest {
  return decodeInbound(call);
}

/**
 * The body `model` would be sent, as runExchange would send it (passthrough or converted):
 * for a provider's own batch API, which runs the upstream leg itself.
 */
export function encodeCall(call: CallBody, request: ChatRequest, model: CatalogModel, defaultMaxTokens: number): EncodedCall {
  const source = { format: call.format, target: call.target, body: call.body, raw: rawOf(call), forwardHeaders: call.forwardHeaders ?? NO_HEADERS };
  const prepared = prepareCall(source, request, model, { defaultMaxTokens });
  const { toolNames: names, stop } = prepared;
  const encoded: EncodedCall = { format: prepared.upstreamFormat, body: prepared.call.body };
  if (names || stop) encoded.restore = (response) => restoreAnswer(response, names, stop);
  return encoded;
}

/** A converted answer as the client's request would have it: its tool names, cut at the stop sequences the upstream could not take. */
function restoreAnswer(response: ChatResponse, names: ToolNames | undefined, stop: string[] | undefined): ChatResponse {
  const named = names ? restoreToolNames(response, names) : response;
  return stop ? cutAtStop(named, stop) : named;
}

/** A call as the upstream gets it; `restore` gives its converted answer the client's tool names back (those the upstream's format refused went shortened) and cuts it at emulated stop sequences. */
export interface EncodedCall {
  format: WireFormat;
  body: Record<string, unknown>;
  restore?: (response: ChatResponse) => ChatResponse;
}

/** An admission for a call that is never charged (a batch line billed before a crash lost its result). */
export const UNBILLED: Admission = { headers: {}, settle: () => Promise.resolve() };
