import { budgetOfEffort, getCodec, getFormat, setOutputCap, type RequestFacts, type RouteTarget } from '../formats/index.ts';
import type { ChatRequest, WireFormat } from '../ir/index.ts';
import { boundInputTokens } from './bound-input-tokens.ts';
import { estimateInputTokens } from './estimate-usage.ts';
import { vendorTools } from './hosted-tools.ts';

/** The inbound body as the pipeline reads it: its format, the parsed body, the URL's model and stream. */
export interface InboundSource {
  format: WireFormat;
  body: Record<string, unknown>;
  raw: string;
  target?: RouteTarget;
}

/**
 * One inbound request: what billing and routing read of it (`facts`, read from the raw body),
 * and its IR, decoded only when something needs it — a conversion, a fallback to another
 * format, the Responses store (issue 21 §7). A same-format passthrough never decodes it, so it
 * is never stricter than the upstream: the decoder's 400/422 come only where the IR is needed.
 */
export class InboundRequest {
  private decoded: ChatRequest | undefined;

  constructor(
    private readonly source: Pick<InboundSource, 'format' | 'body' | 'target'>,
    readonly facts: RequestFacts,
    decoded?: ChatRequest,
  ) {
    this.decoded = decoded;
  }

  /** The IR, decoded on first use (throws the decoder's 400/422). */
  get ir(): ChatRequest {
    return (this.decoded ??= getCodec(this.source.format).decodeRequest(this.source.body, this.source.target));
  }

  /** The IR if something already decoded it. */
  get decodedIr(): ChatRequest | undefined {
    return this.decoded;
  }
}

/**
 * Reads what billing and routing need: through the format's `passthrough.read` (no IR), or,
 * for a format without one, by decoding (then every request of it is as strict as its decoder).
 * `decoded`: the IR, when the caller already has it (a rebuilt Responses history).
 */
export function readInbound(source: InboundSource, decoded?: ChatRequest): InboundRequest {
  const read = getFormat(source.format).passthrough.read;
  if (read) return new InboundRequest(source, read(source), decoded);
  const request = decoded ?? getCodec(source.format).decodeRequest(source.body, source.target);
  return new InboundRequest(source, factsOf(request, source.format), request);
}

/** The facts of a decoded request of `format` (a format without a reader of its own; no session user: only a reader knows which field is one). */
export function factsOf(request: ChatRequest, format: WireFormat): RequestFacts {
  const facts: RequestFacts = { model: request.model, stream: request.stream, inputBound: boundInputTokens(request), inputEstimate: estimateInputTokens(request) };
  // Thinking asked over a smaller cap: a converted request may be answered its budget on top (setOutputCap), as the body's readers say.
  const thinking = request.reasoning?.enabled && request.reasoning.effort !== 'none' ? [request.reasoning.budgetTokens ?? budgetOfEffort(request.reasoning.effort ?? 'medium')] : [];
  if (request.maxTokens !== undefined) setOutputCap(facts, request.maxTokens, thinking);
  if (request.promptCacheKey !== undefined) facts.promptCacheKey = request.promptCacheKey;
  const tools = vendorTools(request, format);
  if (tools) facts.vendorTools = tools;
  if (request.outputModalities?.includes('image')) facts.imageOutput = true;
  return facts;
}
