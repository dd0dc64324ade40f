import { FieldChecker } from '../formats/index.ts';
import type { MediaRecord, MediaStatus, MediaType } from '../store/index.ts';
import { isTooDeep, MAX_JSON_DEPTH } from '../util/index.ts';
import { MEDIA_LIMITS as L } from './media-limits.ts';

export const MEDIA_TYPES = ['image', 'video', 'music', 'threed'] as const satisfies readonly MediaType[];
export const MEDIA_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const satisfies readonly MediaStatus[];

/** Spec §4.1 / §8.2 paging. */
export const PAGING = { defaultPage: 1, defaultPageSize: 20, maxPageSize: 100 } as const;

export interface MediaListQuery {
  mediaType?: MediaType;
  status?: MediaStatus;
  page: number;
  pageSize: number;
}

export interface MediaCreateInput {
  mediaType: MediaType;
  model: string;
  prompt?: string | null;
  providerTaskId?: string | null;
  parameters?: Record<string, unknown>;
}

/** The PATCH-updatable fields (spec §4.1), in stored form. */
export type MediaPatch = Partial<
  Pick<
    MediaRecord,
    | 'status' | 'provider_task_id' | 'result_urls' | 'primary_url' | 'preview_url' | 'file_size_bytes' | 'duration_seconds'
    | 'width' | 'height' | 'input_tokens' | 'output_tokens' | 'cost_credits' | 'error'
  >
>;

function intParam(check: FieldChecker, raw: string | null, name: string, fallback: number, max?: number): number {
  if (raw === null) return fallback;
  // A sign is read, so a negative page is told it is out of range rather than not an integer.
  if (!/^-?\d+$/.test(raw.trim())) {
    check.fail(name, 'must be an integer');
    return fallback;
  }
  return check.number(Number(raw), name, { integer: true, min: 1, max }) ?? fallback;
}

/** Validates list query parameters; `fixedType` is the per-type routes' filter. 422 on any bad value. */
export function decodeListQuery(params: URLSearchParams, fixedType?: MediaType): MediaListQuery {
  const check = new FieldChecker();
  const mediaType = fixedType ?? check.oneOf(params.get('media_type') ?? undefined, 'media_type', MEDIA_TYPES);
  const status = check.oneOf(params.get('status') ?? undefined, 'status', MEDIA_STATUSES);
  // Past 2^53 - 1 a page is no longer a number the envelope can echo exactly.
  const page = intParam(check, params.get('page'), 'page', PAGING.defaultPage, Number.MAX_SAFE_INTEGER);
  const pageSize = intParam(check, params.get('page_size'), 'page_size', PAGING.defaultPageSize, PAGING.maxPageSize);
  check.throwIfAny();
  return { mediaType, status, page, pageSize };
}

function nullableString(check: FieldChecker, body: Record<string, unknown>, key: string): string | null | undefined {
  if (body[key] === null) return null;
  return check.string(body[key], key);
}

/** `parameters` are kept as sent: bounded in depth and in stored size. */
function checkParameters(check: FieldChecker, parameters: Record<string, unknown>): void {
  if (isTooDeep(parameters, MAX_JSON_DEPTH - 1)) {
    check.fail('parameters', `must not nest objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
    return;
  }
  const bytes = Buffer.byteLength(JSON.stringify(parameters));
  if (bytes > L.parametersBytes) check.fail('parameters', `must take at most ${L.parametersBytes} bytes as JSON (takes ${bytes})`);
}

/** Validates a POST body: media_type and model required; every field within MEDIA_LIMITS. */
export function decodeCreateBody(body: Record<string, unknown>): MediaCreateInput {
  const check = new FieldChecker();
  const mediaType = check.requiredOneOf(body.media_type, 'media_type', MEDIA_TYPES);
  const model = check.requiredString(body.model, 'model');
  if (typeof body.model === 'string' && model.trim() === '') check.fail('model', 'must not be empty');
  const prompt = nullableString(check, body, 'prompt');
  const providerTaskId = nullableString(check, body, 'provider_task_id');
  const parameters = check.record(body.parameters, 'parameters');
  check.maxLength(body.model, 'model', L.modelChars);
  check.maxLength(prompt, 'prompt', L.promptChars);
  check.maxLength(providerTaskId, 'provider_task_id', L.providerTaskIdChars);
  if (parameters) checkParameters(check, parameters);
  check.throwIfAny();
  return { mediaType: mediaType!, model, prompt, providerTaskId, parameters };
}

const NUMBER_FIELDS = {
  file_size_bytes: { integer: true, min: 0 },
  duration_seconds: { min: 0 },
  width: { integer: true, min: 0 },
  height: { integer: true, min: 0 },
  input_tokens: { integer: true, min: 0 },
  output_tokens: { integer: true, min: 0 },
  cost_credits: { min: 0 },
} as const;

const STRING_FIELDS = ['provider_task_id', 'primary_url', 'preview_url', 'error'] as const;
const STRING_CHARS: Record<(typeof STRING_FIELDS)[number], number> = {
  provider_task_id: L.providerTaskIdChars,
  primary_url: L.urlChars,
  preview_url: L.urlChars,
  error: L.errorChars,
};

/**
 * Validates a PATCH body (every field within MEDIA_LIMITS). Every updatable field except status and result_urls may be null
 * (to clear it); a field that is not updatable is a 422, so typos do not pass silently.
 */
export function decodePatchBody(body: Record<string, unknown>): MediaPatch {
  const check = new FieldChecker();
  const patch: Record<string, unknown> = {};
  const known = new Set<string>(['status', 'result_urls', ...STRING_FIELDS, ...Object.keys(NUMBER_FIELDS)]);
  for (const key of Object.keys(body)) if (!known.has(key)) check.fail(key, 'is not an updatable field');
  if (body.status !== undefined) patch.status = check.requiredOneOf(body.status, 'status', MEDIA_STATUSES);
  if (body.result_urls !== undefined) {
    const urls = check.array(body.result_urls, 'result_urls');
    if (body.result_urls === null) check.fail('result_urls', 'must be an array of strings');
    else if (urls && !urls.every((u) => typeof u === 'string')) check.fail('result_urls', 'must be an array of strings');
    else if (urls && urls.length > L.resultUrls) check.fail('result_urls', `must have at most ${L.resultUrls} URLs`);
    else if (urls && urls.some((u) => (u as string).length > L.urlChars)) check.fail('result_urls', `URLs must be at most ${L.urlChars} characters`);
    else patch.result_urls = urls;
  }
  for (const key of STRING_FIELDS) {
    if (body[key] === undefined) continue;
    patch[key] = nullableString(check, body, key);
    check.maxLength(body[key], key, STRING_CHARS[key]);
  }
  for (const [key, range] of Object.entries(NUMBER_FIELDS)) {
    if (body[key] === undefined) continue;
    patch[key] = body[key] === null ? null : check.number(body[key], key, range);
  }
  check.throwIfAny();
  return patch as MediaPatch;
}
