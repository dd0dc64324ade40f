import type { BatchErrorData } from '../store/index.ts';
import { defaultModelOf, firstListedModelOf } from './format-of-endpoint.ts';

/** One request line of a batch input file. */
export interface BatchInputLine {
  index: number;
  customId: string;
  body: Record<string, unknown>;
}

/** An endpoint a batch may run: a registered format's route that reads the model from the body (formats/index.ts `batchEndpoints`). */
export type BatchEndpoint = string;

/** At most this many reasons are reported (the file may have thousands of bad lines). */
const MAX_ERRORS = 100;

/**
 * Checks a batch input file (§3.2): JSONL, each line an object with `custom_id`, `method`
 * (POST), `url` (the batch's endpoint) and `body` (an object with a known `model`), no
 * `custom_id` twice. Returns the lines, or the reasons with their 1-based line numbers.
 */
export function validateBatchInput(
  content: Buffer,
  endpoint: string,
  knownModel: (model: string) => boolean,
  whyUnknown?: (model: string) => string | undefined,
): { lines: BatchInputLine[]; errors: BatchErrorData[] } {
  const errors: BatchErrorData[] = [];
  const lines: BatchInputLine[] = [];
  const seen = new Set<string>();
  const fail = (line: number, code: string, message: string, param: string | null = null) => {
    if (errors.length < MAX_ERRORS) errors.push({ code, message, line, param });
  };
  // A UTF-8 byte order mark (Windows editors, PowerShell 5's -Encoding UTF8) is not part of line 1.
  const texts = content.toString('utf8').replace(/^\ufeff/, '').split('\n');
  if (texts.at(-1) === '') texts.pop();
  if (texts.length === 0) fail(1, 'empty_file', 'The input file has no lines.');
  texts.forEach((raw, i) => {
    const n = i + 1;
    const text = raw.replace(/\r$/, '');
    if (text.trim() === '') return fail(n, 'invalid_json', `Line ${n} is empty.`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return fail(n, 'invalid_json', `Line ${n} is not valid JSON.`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(n, 'invalid_json', `Line ${n} is not a JSON object.`);
    const o = value as Record<string, unknown>;
    for (const field of ['custom_id', 'method', 'url', 'body']) {
      if (o[field] === undefined || o[field] === null) return fail(n, 'missing_required_parameter', `Line ${n} has no '${field}'.`, field);
    }
    if (typeof o.custom_id !== 'string' || o.custom_id === '') return fail(n, 'invalid_request', `Line ${n}: 'custom_id' must be a non-empty string.`, 'custom_id');
    if (seen.has(o.custom_id)) return fail(n, 'duplicate_custom_id', `Line ${n}: the custom_id '${o.custom_id}' is used more than once.`, 'custom_id');
    seen.add(o.custom_id);
    if (o.method !== 'POST') return fail(n, 'invalid_method', `Line ${n}: 'method' must be POST.`, 'method');
    if (o.url !== endpoint) return fail(n, 'mismatched_endpoint', `Line ${n}: 'url' is ${JSON.stringify(o.url)}, but the batch's endpoint is ${endpoint}.`, 'url');
    const body = o.body;
    if (typeof body !== 'object' || Array.isArray(body)) return fail(n, 'invalid_request', `Line ${n}: 'body' must be an object.`, 'body');
    // `model` may be left out beside a list of the line's own fallback models (OpenRouter's `models`), as on the route: the list's first.
    const model = (body as Record<string, unknown>).model ?? firstListedModelOf(endpoint, body as Record<string, unknown>) ?? defaultModelOf(endpoint);
    if (typeof model !== 'string' || model === '') return fail(n, 'missing_required_parameter', `Line ${n}: 'body.model' is required.`, 'body.model');
    if (!knownModel(model)) {
      // Why, as the live route's 404 says it (an OpenRouter id whose prefix is no provider here, a model its provider does not list).
      const why = whyUnknown?.(model);
      return fail(n, 'model_not_found', `Line ${n}: the model '${model}' does not exist${why ? `: ${why}` : ''}.`, 'body.model');
    }
    lines.push({ index: i, customId: o.custom_id, body: body as Record<string, unknown> });
  });
  return { lines: errors.length > 0 ? [] : lines, errors };
}
