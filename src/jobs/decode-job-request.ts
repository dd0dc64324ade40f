import { FieldChecker } from '../formats/index.ts';

/** Bounds of a job request (docs/limits.md). */
export const JOB_LIMITS = { modelChars: 256, promptChars: 32_000, maxSeconds: 600, urlChars: 2048, extraKeys: 16, extraValueChars: 1000 } as const;

/** A validated job request: `/v1/videos` fields, or the job fields of a Media Library create. */
export interface JobRequest {
  model: string;
  prompt: string;
  seconds?: number;
  size?: string;
  callbackUrl?: string;
  /** Other scalar fields, passed on to the provider. */
  extra: Record<string, unknown>;
}

const KNOWN = new Set(['model', 'prompt', 'seconds', 'size', 'callback_url', 'input_reference']);

function secondsOf(check: FieldChecker, value: unknown, path: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return check.number(n, path, { min: 1, max: JOB_LIMITS.maxSeconds });
}

/** A `callback_url`: http or https, at most 2048 characters. */
function callbackOf(check: FieldChecker, value: unknown): string | undefined {
  const url = check.string(value ?? undefined, 'callback_url');
  if (url === undefined) return undefined;
  check.maxLength(url, 'callback_url', JOB_LIMITS.urlChars);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) check.fail('callback_url', 'must be an http or https URL');
  return url;
}

/**
 * `POST /v1/videos` fields (JSON or multipart text, all strings there): `model` and `prompt`
 * required, `seconds` 1–600, `size` `WxH`, `callback_url`; other scalar fields pass on to the
 * provider (at most 16, strings of at most 1000 characters). 422 naming every bad field.
 */
export function decodeVideoRequest(body: Record<string, unknown>): JobRequest {
  const check = new FieldChecker();
  const model = check.requiredString(body.model, 'model');
  check.maxLength(model, 'model', JOB_LIMITS.modelChars);
  const prompt = check.requiredString(body.prompt, 'prompt');
  check.maxLength(prompt, 'prompt', JOB_LIMITS.promptChars);
  if (prompt === '') check.fail('prompt', 'must not be empty');
  const seconds = secondsOf(check, body.seconds, 'seconds');
  const size = check.string(body.size ?? undefined, 'size');
  if (size !== undefined && !/^\d{1,5}x\d{1,5}$/.test(size)) check.fail('size', "must be 'WIDTHxHEIGHT', e.g. '1280x720'");
  const callbackUrl = callbackOf(check, body.callback_url);
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (KNOWN.has(key) || value === undefined) continue;
    if (!['string', 'number', 'boolean'].includes(typeof value) || (typeof value === 'string' && value.length > JOB_LIMITS.extraValueChars)) {
      check.fail(key, `must be a string (at most ${JOB_LIMITS.extraValueChars} characters), a number or a boolean`);
    } else extra[key] = value;
  }
  if (Object.keys(extra).length > JOB_LIMITS.extraKeys) check.fail('body', `has more than ${JOB_LIMITS.extraKeys} provider-specific fields`);
  check.throwIfAny();
  return { model, prompt, seconds, size, callbackUrl, extra };
}

/**
 * The job fields of a Media Library create whose model runs jobs: the prompt (required then),
 * `parameters.seconds` (or `duration`), `parameters.size` and a top-level `callback_url`.
 */
export function decodeLibraryJob(body: Record<string, unknown>, model: string, parameters: Record<string, unknown>): JobRequest {
  const check = new FieldChecker();
  const prompt = check.requiredString(body.prompt, 'prompt');
  if (prompt === '') check.fail('prompt', 'must not be empty');
  const seconds = secondsOf(check, parameters.seconds ?? parameters.duration, parameters.seconds !== undefined ? 'parameters.seconds' : 'parameters.duration');
  const size = typeof parameters.size === 'string' && /^\d{1,5}x\d{1,5}$/.test(parameters.size) ? parameters.size : undefined;
  const callbackUrl = callbackOf(check, body.callback_url);
  check.throwIfAny();
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) if (['string', 'number', 'boolean'].includes(typeof value) && !['seconds', 'duration', 'size'].includes(key)) extra[key] = value;
  return { model, prompt, seconds, size, callbackUrl, extra };
}
