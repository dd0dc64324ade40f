import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { cancelBatch, newBatchRecord, refuseOverOpenBatches, viewBatch, windowSeconds, batchEndpointList } from '../../batches/index.ts';
import { GatewayError, validationError } from '../../errors/index.ts';
import type { BatchRecord } from '../../store/index.ts';
import { newId } from '../../util/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { listQuery } from './files.ts';
import type { RouteDef } from './types.ts';

const seconds = (ms: number) => Math.floor(ms / 1000);

function decodeMetadata(value: unknown, problems: Record<string, string>): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.metadata = 'must be an object of string values';
    return null;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 16) problems.metadata = 'must have at most 16 pairs';
  else if (entries.some(([k, v]) => typeof v !== 'string' || k.length > 64 || v.length > 512)) problems.metadata = 'keys are strings of at most 64 characters, values strings of at most 512';
  return entries.length > 0 ? (value as Record<string, string>) : null;
}

function createHandler(deps: ServerDeps, wake: () => void) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'other')));
    const problems: Record<string, string> = {};
    const endpoint = body.endpoint;
    const endpoints = batchEndpointList();
    if (endpoint === undefined || endpoint === null) problems.endpoint = 'is required';
    else if (typeof endpoint !== 'string' || !endpoints.includes(endpoint)) problems.endpoint = `must be one of: ${endpoints.join(', ')}`;
    const window = body.completion_window ?? '24h';
    const windowS = typeof window === 'string' ? windowSeconds(window) : undefined;
    if (windowS === undefined) problems.completion_window = "must be a duration such as '24h' (at most 24h)";
    const fileId = body.input_file_id;
    if (typeof fileId !== 'string' || fileId === '') problems.input_file_id = fileId === undefined || fileId === null ? 'is required' : 'must be a non-empty string';
    const metadata = decodeMetadata(body.metadata, problems);
    if (Object.keys(problems).length > 0) throw validationError(problems);
    const input = await deps.store.files.get(auth.account.id, body.input_file_id as string);
    if (!input) throw new GatewayError('file_not_found', `No file with id '${String(body.input_file_id)}'.`);
    if (input.purpose !== 'batch') throw validationError({ input_file_id: "must be a file uploaded with purpose 'batch'" });
    await refuseOverOpenBatches(deps.store, auth.account.id, deps.config.batches.maxOpenPerAccount);
    const now = seconds(deps.clock.now());
    const record = newBatchRecord({
      id: newId('batch'),
      accountId: auth.account.id,
      keyId: auth.key.id,
      endpoint: endpoint as string,
      input_file_id: input.id,
      completion_window: window as string,
      created_at: now,
      windowSeconds: windowS!,
      metadata,
    });
    await deps.store.batches.create(record);
    wake();
    return json(event, viewBatch(record));
  };
}

async function ownBatch(deps: ServerDeps, accountId: string, id: string): Promise<BatchRecord> {
  const record = await deps.store.batches.get(id);
  if (!record || record.accountId !== accountId) throw new GatewayError('not_found', `No batch with id '${id}'.`);
  return record;
}

function getHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    return json(event, viewBatch(await ownBatch(deps, auth.account.id, getRouterParam(event, 'id') ?? '')));
  };
}

function listHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const query = listQuery(event.url.searchParams, 100, 20);
    const page = await deps.store.batches.list({ accountId: auth.account.id, ...query });
    return json(event, { object: 'list', data: page.data.map(viewBatch), first_id: page.data[0]?.id ?? null, last_id: page.data.at(-1)?.id ?? null, has_more: page.hasMore });
  };
}

function cancelHandler(deps: ServerDeps, wake: () => void) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    const batch = await ownBatch(deps, auth.account.id, getRouterParam(event, 'id') ?? '');
    const next = await cancelBatch(deps, batch);
    wake();
    return json(event, viewBatch(next));
  };
}

/** Batches (OpenAI's /v1/batches shapes; docs/batches.md). Exempt from rate limits (§8.1). */
export function batchRoutes(deps: ServerDeps): RouteDef[] {
  const wake = () => deps.batches?.wake();
  return [
    { method: 'POST', path: '/v1/batches', handler: createHandler(deps, wake), format: 'chat' },
    { method: 'GET', path: '/v1/batches', handler: listHandler(deps), format: 'chat' },
    { method: 'GET', path: '/v1/batches/:id', handler: getHandler(deps), format: 'chat' },
    { method: 'POST', path: '/v1/batches/:id/cancel', handler: cancelHandler(deps, wake), format: 'chat' },
  ];
}
