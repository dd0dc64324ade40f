import { GatewayError, type ErrorCode } from '../errors/index.ts';

/**
 * Where an upstream failure was seen: a non-2xx answer, the first record of a 200 stream (still
 * before anything reached the client), a record later in the stream, or a media call.
 */
export type UpstreamErrorPhase = 'response' | 'first-record' | 'mid-stream' | 'media';

/** What an upstream said about a failure, as its codec read it. */
export interface UpstreamErrorFacts {
  /** The HTTP status of a non-2xx answer; absent for an error inside a 200 stream. */
  status?: number;
  /** The error's kind: OpenAI and Anthropic `error.type` (`rate_limit_error`, `overloaded_error`…). */
  type?: string;
  /** OpenAI `error.code` (`rate_limit_exceeded`, `context_length_exceeded`…); Responses stream errors carry the kind here. */
  code?: string;
  /** A content-policy refusal's categories (Azure's `content_filter_result`), shown in `details.content_filter_result`. */
  contentFilter?: Record<string, unknown>;
  /** OpenAI `error.param`: the request field the upstream refused (the client's `error.param` on a refusal of the request). */
  param?: string;
  /** The upstream's typed error details (Google's `error.details`), shown in `details.upstream_details`. */
  upstreamDetails?: Record<string, unknown>[];
  phase: UpstreamErrorPhase;
}

/**
 * Kinds that say the upstream refused the gateway's own credentials: Google answers a wrong or
 * expired API key 400 INVALID_ARGUMENT, its ErrorInfo reason API_KEY_INVALID saying which.
 */
const CREDENTIAL_KIND = /authentication|permission|invalid_api_key|api_key_invalid|unauthenticated/i;

/** HTTP statuses that say what happened whatever the body says. */
const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  401: 'provider_error', // the gateway's upstream credentials, not the client's
  // The gateway's own account with the provider is out of credit (OpenRouter, DeepSeek): as OpenAI's insufficient_quota.
  402: 'rate_limit_exceeded',
  403: 'provider_error',
  404: 'model_not_found',
  408: 'provider_timeout',
  413: 'request_too_large',
  429: 'rate_limit_exceeded',
  503: 'provider_unavailable',
  504: 'provider_timeout',
  529: 'provider_unavailable',
};

/**
 * Error kinds (type or code: OpenAI's and Anthropic's spellings, and Google's canonical status
 * names such as `RESOURCE_EXHAUSTED`, which are all a Gemini stream's error record says), most
 * specific first.
 */
const BY_KIND: ReadonlyArray<[RegExp, ErrorCode]> = [
  [/^content_filter$/, 'content_filter'],
  [/rate_limit|insufficient_quota|resource_exhausted/i, 'rate_limit_exceeded'],
  [/overloaded|unavailable/i, 'provider_unavailable'],
  [/timeout|deadline_exceeded/i, 'provider_timeout'],
  [/too_large/i, 'request_too_large'],
  [CREDENTIAL_KIND, 'provider_error'],
  [/not_found/i, 'model_not_found'],
  [/invalid_request|invalid_prompt|context_length|bad_request|invalid_argument|failed_precondition|out_of_range/i, 'bad_request'],
];

function byKind(kind: string | undefined): ErrorCode | undefined {
  if (kind === undefined || kind === 'error') return undefined; // Responses `error` events say `type: "error"`
  for (const [pattern, code] of BY_KIND) if (pattern.test(kind)) return code;
  return undefined;
}

/**
 * The spec's code (§7) for an upstream failure. One fault gets one code whenever it arrives:
 * a 429, a `rate_limit_error` as a stream's first record and one in the middle of a stream
 * are all `rate_limit_exceeded`. A telling HTTP status wins; else the upstream's `code`, then
 * its `type`; else any other 4xx is the request's fault and the rest the provider's.
 */
export function classifyUpstreamError(facts: UpstreamErrorFacts): ErrorCode {
  const status = facts.status;
  if (status !== undefined && BY_STATUS[status] !== undefined) return BY_STATUS[status];
  const known = byKind(facts.code) ?? byKind(facts.type);
  if (known) return known;
  return status !== undefined && status >= 400 && status < 500 ? 'bad_request' : 'provider_error';
}

/**
 * A refusal of input longer than the model's context window, in each upstream's words: OpenAI's
 * code and message, Anthropic's "prompt is too long", Gemini's input token count, Bedrock's
 * "Input is too long".
 */
const CONTEXT_OVERFLOW = /context_length_exceeded|prompt is too long|maximum context length|exceeds the context window|input token count.{0,100}exceeds the maximum|input is too long/i;

/**
 * How a context overflow is told, whatever the upstream: clients know it by their own provider's
 * words (LangChain's ChatOpenAI by `context_length_exceeded` or "exceeds the context window",
 * ChatAnthropic by "prompt is too long"), and a converted route would otherwise hide it.
 */
const OVERFLOW_WORDS = 'the prompt is too long: it exceeds the context window of the model (context_length_exceeded)';

/** The prompt's size and the window, where the upstream says them: OpenAI's, Gemini's and Anthropic's wording. */
const OVERFLOW_COUNTS: ReadonlyArray<[RegExp, 'limit-first' | 'actual-first']> = [
  [/maximum context length is (\d+) tokens[\s\S]*?(?:resulted in|requested(?: about)?) (\d+) tokens/i, 'limit-first'],
  [/input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/i, 'actual-first'],
  [/prompt is too long: (\d+) tokens > (\d+) maximum/i, 'actual-first'],
];

/** How much of an overflow message is searched for its counts. */
const OVERFLOW_HEAD_CHARS = 4096;

/**
 * The overflow told for the client: with the counts in Anthropic's words ("prompt is too long:
 * 210000 tokens > 128000 maximum") where the upstream gave them, which Claude Code reads to say
 * how far over the conversation is and what to compact; else without.
 */
function overflowWords(message: string): string {
  // The counts stand in the message's first words; the patterns (OpenAI's lazy gap between its two
  // counts) cost the square of what they read where the words repeat, and an upstream's body is not bounded.
  const head = message.slice(0, OVERFLOW_HEAD_CHARS);
  for (const [pattern, order] of OVERFLOW_COUNTS) {
    const match = pattern.exec(head);
    if (!match) continue;
    const [actual, limit] = order === 'actual-first' ? [match[1], match[2]] : [match[2], match[1]];
    return `the prompt is too long: ${actual} tokens > ${limit} maximum; it exceeds the context window of the model (context_length_exceeded)`;
  }
  return OVERFLOW_WORDS;
}

/** OpenAI's `insufficient_quota`: the gateway's own account with the provider is out of credit, which no wait mends. */
export const QUOTA_EXHAUSTED = /insufficient_quota/i;

/** Anthropic's words for the gateway's account with it out of credit, which it answers 400 invalid_request_error. */
const CREDIT_TOO_LOW = /credit balance is too low/i;

/**
 * The gateway's own account with the provider is out of credit, whatever the status it came with:
 * a 402 (OpenRouter, DeepSeek), Anthropic's 400 saying so. Nothing the client can mend.
 */
function outOfCredit(report: UpstreamErrorReport): boolean {
  return report.status === 402 || CREDIT_TOO_LOW.test(report.message.slice(0, 200));
}

/** True when the upstream refused the gateway's own credentials (never echo what it said). */
function isCredentialFailure(facts: UpstreamErrorFacts): boolean {
  if (facts.status === 401 || facts.status === 403) return true;
  return CREDENTIAL_KIND.test(`${facts.code ?? ''} ${facts.type ?? ''}`);
}

/** Secrets an upstream may echo back (e.g. "Incorrect API key provided: sk-…"). */
const SECRET_PATTERN = /\b(sk|pk|rk|key)-[A-Za-z0-9_\-]{6,}|\bBearer\s+\S+/g;

function clean(message: string): string {
  return message.replace(SECRET_PATTERN, '[redacted]').slice(0, 500);
}

/** Seconds from a Retry-After header (delta-seconds or HTTP date). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const ms = retryAfterHeaderMs(value, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** Milliseconds from a Retry-After header: delta-seconds (fractions kept, as the SDKs read them) or an HTTP date. */
function retryAfterHeaderMs(value: string | string[] | undefined, now: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** OpenAI's `retry-after-ms` (milliseconds, whole ones kept); undefined when absent or not a number. */
function parseRetryAfterMs(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const ms = Number(raw);
  return Number.isFinite(ms) && ms >= 0 ? Math.ceil(ms) : undefined;
}

/** The longest upstream wait relayed (a day): past it a number (1e308 ms) would become an invalid Retry-After ('1e+305'). */
const MAX_UPSTREAM_WAIT_MS = 86_400_000;

/**
 * The wait an upstream 429 names, in milliseconds, at most a day: `retry-after-ms` first (its
 * SDKs read it first), then Retry-After, then the body's (Google's RetryInfo).
 */
function upstreamWaitMs(report: UpstreamErrorReport): number | undefined {
  const headers = report.headers;
  const ms =
    parseRetryAfterMs(headers?.['retry-after-ms']) ??
    retryAfterHeaderMs(headers?.['retry-after'], Date.now()) ??
    report.retryAfterMs ??
    (report.retryAfter === undefined ? undefined : report.retryAfter * 1000);
  return ms === undefined || Number.isNaN(ms) ? undefined : Math.min(ms, MAX_UPSTREAM_WAIT_MS);
}

/** An upstream failure as the codec read it: the facts, the upstream's message, the answer's headers. */
export interface UpstreamErrorReport extends UpstreamErrorFacts {
  message: string;
  headers?: Record<string, string | string[] | undefined>;
  /** The wait the error body names (Google's `RetryInfo`), in seconds; a header wins over it. */
  retryAfter?: number;
  /** The body's wait to the millisecond, when it names a fraction of a second. */
  retryAfterMs?: number;
}

/** The GatewayError for an upstream failure: classified once, worded for the client, details for the operator. */
export function upstreamError(providerId: string, report: UpstreamErrorReport): GatewayError {
  const broke = outOfCredit(report);
  const code = broke ? 'rate_limit_exceeded' : classifyUpstreamError(report);
  const upstream = clean(report.message || (report.status === undefined ? 'no message' : `status ${report.status}`));
  const details: Record<string, unknown> = { provider: providerId };
  if (report.status !== undefined) details.upstream_status = report.status;
  // The upstream's own code (`string_above_max_length`, `context_length_exceeded`): `error.code` stays the spec's.
  if (report.code !== undefined && !isCredentialFailure(report)) details.upstream_code = report.code;
  // What else it said (Google's QuotaFailure, Help, BadRequest…): a Gemini client gets them back as Google sent them.
  if (report.upstreamDetails !== undefined && report.upstreamDetails.length > 0 && !isCredentialFailure(report)) details.upstream_details = report.upstreamDetails;
  switch (code) {
    case 'rate_limit_exceeded': {
      // Retrying that provider cannot help (routing moves on to the next candidate instead), nor can
      // the client's retry: `x-should-retry: false` is what the OpenAI and Anthropic SDKs obey.
      const exhausted = broke || QUOTA_EXHAUSTED.test(`${report.code ?? ''} ${report.type ?? ''}`);
      if (exhausted) details.upstream_quota_exhausted = true;
      // Retry-After and error.retry_after are whole seconds (rounded up); retry-after-ms keeps the upstream's precision.
      const retryAfterMs = upstreamWaitMs(report);
      const retryAfter = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
      const headers: Record<string, string> = {};
      if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
      if (exhausted) headers['x-should-retry'] = 'false';
      // Said as Google says a quota that holds nothing ("limit: 0"), which gemini-cli stops at.
      const said = exhausted ? `The provider '${providerId}' has no credit left for the gateway (quota limit: 0), so no retry can succeed: ${upstream}` : `The provider '${providerId}' is rate limiting requests: ${upstream}`;
      return new GatewayError(code, said, {
        details,
        retryAfter,
        retryAfterMs,
        headers: Object.keys(headers).length === 0 ? undefined : headers,
      });
    }
    case 'model_not_found':
      return new GatewayError(code, `The provider '${providerId}' does not know this model: ${upstream}`, { details });
    case 'request_too_large':
      return new GatewayError(code, `The provider '${providerId}' says the request is too large: ${upstream}`, { details });
    case 'provider_timeout':
      return new GatewayError(code, `The provider '${providerId}' timed out: ${upstream}`, { details });
    case 'provider_unavailable':
      return new GatewayError(code, `The provider '${providerId}' is unavailable: ${upstream}`, { details });
    case 'bad_request':
      // The field it refused is the client's `error.param` (errorParam reads `details.param`).
      if (report.param !== undefined) details.param = report.param;
      if (CONTEXT_OVERFLOW.test(`${report.code ?? ''} ${report.message}`)) {
        // Marked, whatever the upstream's words: a streamed Responses client gets it as OpenAI streams it (CONTEXT_OVERFLOW_CODE).
        details.context_overflow = true;
        return new GatewayError(code, `The provider '${providerId}' rejected the request: ${overflowWords(report.message)}. It said: ${upstream}`, { details });
      }
      return new GatewayError(code, `The provider '${providerId}' rejected the request: ${upstream}`, { details });
    case 'content_filter':
      if (report.param !== undefined) details.param = report.param;
      if (report.contentFilter) details.content_filter_result = report.contentFilter;
      return new GatewayError(code, `The provider '${providerId}' filtered the request under its content policy: ${upstream}`, { details });
    default:
      // The client's key was fine; the gateway's upstream credentials were not. Never echo them.
      if (isCredentialFailure(report)) return new GatewayError('provider_error', `The provider '${providerId}' rejected the gateway's credentials.`, { details });
      return new GatewayError('provider_error', `The provider '${providerId}' failed: ${upstream}`, { details });
  }
}
