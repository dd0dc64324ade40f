import type { H3Event } from 'h3';
import { GatewayError, validationError } from '../../errors/index.ts';
import { afterNotFound } from './after-not-found.ts';
import { storedResponseNotFound as notFound } from '../../exchange/index.ts';
import { compactedResponse, inputItemsOf, pageInputItems, replayResponseStream } from '../../formats/index.ts';
import { formatSse, SSE_CONTENT_TYPE } from '../../sse/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { json } from '../send.ts';
import { listOrder, listQuery } from './files.ts';
import { inferenceHandler } from './inference.ts';
import type { ServerDeps } from '../types.ts';

/**
 * GET /v1/responses/{id}: the caller's own stored responses only. With `stream=true` (the openai
 * SDK's `responses.stream({ response_id, starting_after })`) the stored answer comes as the
 * events of its stream, after `starting_after` when given.
 */
export function getStoredResponse(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const params = event.url.searchParams;
    const stream = params.get('stream');
    if (stream !== null && stream !== 'true' && stream !== 'false') throw validationError({ stream: 'must be true or false' });
    const after = params.get('starting_after');
    const startingAfter = after === null ? -1 : Number(after);
    if (after !== null && (after.trim() === '' || !Number.isInteger(startingAfter) || startingAfter < 0)) throw validationError({ starting_after: 'must be a whole number from 0' });
    const id = event.context.params?.id ?? '';
    const stored = await deps.store.responses.get(auth.account.id, id);
    if (!stored) throw notFound(id);
    if (stream !== 'true') return json(event, stored.response);
    event.res.headers.set('content-type', SSE_CONTENT_TYPE);
    return replayResponseStream(stored.response, startingAfter).map(formatSse).join('');
  };
}

/**
 * GET /v1/responses/{id}/input_items: the input the stored response was made from (its history
 * included), as OpenAI lists it: `after`/`limit` (1–100, default 20)/`order` (default `desc`).
 */
export function listStoredInputItems(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const params = event.url.searchParams;
    const query = { ...listQuery(params, 100, 20), order: listOrder(params) };
    const id = event.context.params?.id ?? '';
    const stored = await deps.store.responses.get(auth.account.id, id);
    if (!stored) throw notFound(id);
    const items = inputItemsOf(stored.request, id);
    if (query.after !== undefined && !items.some((item) => item.id === query.after)) throw afterNotFound(query.after, `the input of response '${id.slice(0, 200)}'`, 'an item of that input');
    return json(event, pageInputItems(items, query));
  };
}


/**
 * POST /v1/responses/{id}/cancel: OpenAI cancels only a response created with `background: true`
 * and refuses any other with 400; the gateway answers every request in the foreground, so a
 * stored response is never one it could cancel.
 */
export function cancelStoredResponse(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = event.context.params?.id ?? '';
    if (!(await deps.store.responses.get(auth.account.id, id))) throw notFound(id);
    throw new GatewayError('bad_request', 'Only responses created with background=true can be cancelled; this gateway answers every request in the foreground, so this one has already finished.', { details: { id } });
  };
}

/** DELETE /v1/responses/{id} */
export function deleteStoredResponse(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const id = event.context.params?.id ?? '';
    if (!(await deps.store.responses.delete(auth.account.id, id))) throw notFound(id);
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

/**
 * POST /v1/responses/compact (the openai SDK's `responses.compact`; Codex compacts through it on
 * its OpenAI provider, and reports an error, with no local fallback, when it fails): passed
 * through to a Responses upstream whose provider has the route; elsewhere the routed model writes
 * a handoff summary and the answer has OpenAI's shape, the user messages then one `compaction`
 * item the gateway reads back on the next request (src/formats/responses/compaction.ts).
 */
export function compactResponses(deps: ServerDeps) {
  return inferenceHandler(deps, 'responses', { method: 'POST', path: '/v1/responses/compact', from: 'body' }, undefined, {
    compact: true,
    check(body) {
      if (body.stream !== undefined && body.stream !== false) throw validationError({ stream: 'is not a parameter of POST /v1/responses/compact, which answers whole' });
    },
    reshape(answer, body) {
      const parsed = JSON.parse(answer) as Record<string, unknown>;
      // An upstream's own compaction (passthrough) goes as it came.
      if (parsed.object !== 'response') return answer;
      const compacted = compactedResponse(parsed, body);
      if (!compacted) throw new GatewayError('provider_error', 'The model answered the compaction request without a summary.');
      return JSON.stringify(compacted);
    },
  });
}
