import type { H3Event } from 'h3';
import { GatewayError } from '../../errors/index.ts';
import { getCodec } from '../../formats/registry.ts';
import { prependHistory, responseToHistory } from '../../formats/responses/index.ts';
import type { ChatRequest } from '../../ir/types.ts';
import type { ChatExchange, ChatOutcome } from '../../pipeline/types.ts';
import { ResponseCollector } from '../../responses-store/collect-response.ts';
import { SseParser } from '../../sse/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { json } from '../send.ts';
import type { AuthContext } from '../../accounts/types.ts';
import type { ServerDeps } from '../types.ts';

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No stored response with id '${id}'.`, { details: { id } });
}

/**
 * `previous_response_id`: rebuilds the history from the stored chain and rewrites the inbound
 * body as a self-contained request, so it can go to any upstream format (pitfall 10/11).
 */
export async function rehydrateResponsesRequest(deps: ServerDeps, exchange: ChatExchange, request: ChatRequest, auth: AuthContext): Promise<ChatRequest> {
  const previousId = request.previousResponseId;
  if (!previousId) return request;
  const stored = await deps.responses.get(previousId);
  if (!stored || stored.accountId !== auth.account.id) throw notFound(previousId);
  const next = prependHistory(request, responseToHistory(stored.request, stored.response));
  const body = getCodec('responses').encodeRequest(next, { upstreamModel: next.model });
  exchange.body = body;
  exchange.raw = JSON.stringify(body);
  return next;
}

/** Keeps the response the client saw (unless `store: false`), read back from what was sent. */
export function storeResponsesOutcome(deps: ServerDeps, outcome: ChatOutcome, request: ChatRequest, auth: AuthContext): ChatOutcome {
  if (request.store === false) return outcome;
  const save = (response: ReturnType<ResponseCollector['result']>) => {
    if (!response.id) return;
    deps.responses.save({ id: response.id, accountId: auth.account.id, createdAt: deps.clock.now(), request, response });
  };
  if (outcome.json !== undefined) {
    try {
      save(getCodec('responses').decodeResponse(JSON.parse(outcome.json)));
    } catch (error) {
      deps.log.warn('could not store a response', { error: String(error) });
    }
    return outcome;
  }
  const source = outcome.stream!;
  async function* tee(): AsyncGenerator<string | Uint8Array> {
    const parser = new SseParser();
    const decoder = getCodec('responses').createStreamDecoder();
    const collector = new ResponseCollector();
    let complete = false;
    try {
      for await (const chunk of source) {
        for (const record of parser.push(chunk)) {
          for (const part of decoder.push(record)) {
            collector.push(part);
            if (part.type === 'finish') complete = true;
          }
        }
        yield chunk;
      }
      for (const part of decoder.end()) collector.push(part);
    } finally {
      if (complete && !collector.failed) save(collector.result());
    }
  }
  return { ...outcome, stream: tee() };
}

/** GET /v1/responses/{id} */
export function getStoredResponse(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = event.context.params?.id ?? '';
    const stored = await deps.responses.get(id);
    if (!stored || stored.accountId !== auth.account.id) throw notFound(id);
    return json(event, getCodec('responses').encodeResponse(stored.response, stored.request));
  };
}

/** DELETE /v1/responses/{id} */
export function deleteStoredResponse(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = event.context.params?.id ?? '';
    const stored = await deps.responses.get(id);
    if (!stored || stored.accountId !== auth.account.id) throw notFound(id);
    await deps.responses.delete(id);
    return json(event, { id, object: 'response', deleted: true });
  };
}

/** The Responses built-in tools; they run on OpenAI's side, so only Responses upstreams get them. */
const BUILT_IN_TOOLS = [
  { type: 'web_search', description: 'Search the web and cite results.' },
  { type: 'file_search', description: 'Search uploaded files in vector stores.' },
  { type: 'code_interpreter', description: 'Run Python in a sandbox.' },
  { type: 'image_generation', description: 'Generate or edit images inside a response.' },
  { type: 'mcp', description: 'Call tools of a remote MCP server.' },
  { type: 'computer_use_preview', description: 'Operate a virtual computer.' },
  { type: 'shell', description: 'Run shell commands in a hosted container.' },
];

/** GET /v1/responses/tools: the built-in tools and which configured models can run them. */
export function listResponsesTools(deps: ServerDeps) {
  return (event: H3Event): string => {
    authenticateApiKey(event, deps);
    const upstreams = deps.registry.models.filter((m) => m.formats.includes('responses') && (m.spec.type ?? 'chat') === 'chat').map((m) => m.id);
    return json(event, {
      object: 'list',
      data: BUILT_IN_TOOLS.map((tool) => ({ ...tool, object: 'response.tool', supported_by: upstreams })),
      function_tools: { supported_by: deps.registry.models.filter((m) => (m.spec.capabilities ?? []).includes('function_calling')).map((m) => m.id) },
    });
  };
}
