import type { ChatRequest } from '../../ir/index.ts';
import type { InboundBody, RequestFacts, VendorTools } from '../types.ts';
import { capFields, FieldChecker, isWebSearchType, measureInput, mediaByType, requireBodyShape, requireObjectItems, toolTypesOf, type CappedBody } from '../shared/index.ts';
import { anthropicTools } from './decode-request.ts';
import { isWebSearchServerTool } from './map-web-search.ts';

/** `max_tokens` lowered to the model's maximum, and the thinking budget kept below it (Anthropic wants it so). */
export function capMessagesOutput(body: Record<string, unknown>, max: number): CappedBody | undefined {
  const capped = capFields(body, ['max_tokens'], max);
  const thinking = capped?.body.thinking as { budget_tokens?: unknown } | undefined;
  if (capped && typeof thinking?.budget_tokens === 'number' && thinking.budget_tokens >= max) capped.body.thinking = { ...thinking, budget_tokens: Math.max(1024, max - 1024) };
  return capped;
}

/** Content block types that carry media (an image, a PDF or text document). */
const MEDIA = mediaByType(new Set(['image', 'document']));

/**
 * What billing and routing read of an Anthropic Messages body — all a passthrough reads (the
 * rest is the upstream's to judge): model, stream, `max_tokens`, the input bound,
 * `metadata.user_id` (sticky routing) and the Anthropic-defined tools only a Messages upstream runs
 * (with the web search's `max_uses`, the credit hold's bound on searches).
 */
export function readMessagesRequest({ body: raw }: InboundBody): RequestFacts {
  const body = requireBodyShape(raw, 'messages');
  requireObjectItems(body.messages as unknown[], 'messages');
  const check = new FieldChecker();
  const stream = check.boolean(body.stream, 'stream') ?? false;
  const maxTokens = check.number(body.max_tokens, 'max_tokens', { min: 0, integer: true });
  const metadata = check.record(body.metadata, 'metadata');
  const userId = metadata && check.string(metadata.user_id, 'metadata.user_id');
  check.throwIfAny();
  const input = measureInput([body.system, body.messages, body.tools, body.output_config], MEDIA);
  const facts: RequestFacts = { model: body.model, stream, inputBound: input.bound, inputEstimate: input.estimate };
  if (maxTokens !== undefined) facts.maxTokens = maxTokens;
  if (userId !== undefined) facts.userId = userId;
  const server = anthropicTools(body.tools);
  const mcp = hasMcpServers(body.mcp_servers);
  if (server.length > 0 || mcp) {
    const types = server.map((tool) => String(tool.type));
    if (mcp) types.push(MCP_SERVERS);
    const search = server.find(isWebSearchServerTool);
    facts.vendorTools = { format: 'messages', types, webSearch: search ? types.filter(isWebSearchType) : [] };
    if (typeof search?.max_uses === 'number') facts.vendorTools.maxUses = search.max_uses;
  }
  return facts;
}

/**
 * The MCP connector's `mcp_servers` (Claude calls those servers' tools itself): tools only Anthropic's API runs, like its
 * server tools, so they follow the same `hostedTools` policy (dropped and named in X-Gateway-Dropped-Tools, or refused).
 */
const MCP_SERVERS = 'mcp_servers';

function hasMcpServers(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

/** The Anthropic-defined tools of a decoded request (its decoder keeps them raw in `extra.serverTools`), its web search (and its `max_uses`) among them. */
export function messagesVendorTools(request: ChatRequest): VendorTools | undefined {
  const types = toolTypesOf(request.extra?.serverTools);
  if (hasMcpServers(request.extra?.mcp_servers)) types.push(MCP_SERVERS);
  if (types.length === 0) return undefined;
  const tools: VendorTools = { format: 'messages', types, webSearch: request.webSearch ? types.filter(isWebSearchType) : [] };
  if (request.webSearch?.maxUses !== undefined) tools.maxUses = request.webSearch.maxUses;
  return tools;
}
