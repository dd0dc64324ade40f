import { quotedFinder, withField } from '../../util/index.ts';
import type { PassthroughRequest, PassthroughRules, PassthroughTarget, PreparedPassthrough, RewriteContext, WireRecord } from '../types.ts';
import { capFields, CARRIED_ID_PREFIX, isRecord, readToolId } from '../shared/index.ts';
import { withoutOpenRouterFields } from './openrouter-fields.ts';
import { readChatRequest } from './read-request.ts';

/** What every record a Chat passthrough rewrites or reads usage from holds (PassthroughRules.marker). */
export const CHAT_MARKER = '"usage"';
const findUsageObject = quotedFinder('"usage":{');
const findEmptyChoices = quotedFinder('"choices":[]');

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * The raw body of a non-empty JSON object with `stream_options` added last, so a streamed
 * passthrough keeps the client's bytes (no JSON.stringify of the whole request). Undefined
 * when the text does not end like an object with members.
 */
function withIncludeUsage(raw: string): string | undefined {
  let end = raw.length - 1;
  while (end > 0 && isJsonSpace(raw.charCodeAt(end))) end -= 1;
  if (raw.charCodeAt(end) !== 125 /* } */) return undefined;
  let before = end - 1;
  while (before > 0 && isJsonSpace(raw.charCodeAt(before))) before -= 1;
  if (raw.charCodeAt(before) === 123 /* { */) return undefined;
  return `${raw.slice(0, end)},"stream_options":{"include_usage":true}${raw.slice(end)}`;
}

type Json = Record<string, unknown>;

/** A message with its tool call ids (the calls' and a tool message's) read back from the gateway's carried ids. */
function withOwnToolIds(message: unknown): unknown {
  if (!isRecord(message)) return message;
  if (typeof message.tool_call_id === 'string' && message.tool_call_id.startsWith(CARRIED_ID_PREFIX)) return { ...message, tool_call_id: readToolId(message.tool_call_id).id };
  if (!Array.isArray(message.tool_calls)) return message;
  const calls = message.tool_calls.map((call: unknown) => (isRecord(call) && typeof call.id === 'string' && call.id.startsWith(CARRIED_ID_PREFIX) ? { ...call, id: readToolId(call.id).id } : call));
  return calls.some((call, i) => call !== (message.tool_calls as unknown[])[i]) ? { ...message, tool_calls: calls } : message;
}

/**
 * The body with the gateway's carried tool call ids (`gwpm_…`: a Gemini call's id with its thought
 * signature, which a client switching models sends on) back to the calls' own ids. OpenAI refuses
 * an id over 40 characters, and no Chat upstream can read the signature; the call and its tool
 * message get the same id, so they still pair. A body without one (nearly all) is not parsed again.
 */
function restoreToolIds(request: PassthroughRequest): PassthroughRequest | undefined {
  // One substring search per request (~0.4 µs for 2 kB, ~4 µs for 25 kB on Node 20; a JSON.parse of the same costs 10-50× more).
  if (!request.raw.includes(CARRIED_ID_PREFIX) || !Array.isArray(request.body.messages)) return undefined;
  const messages = request.body.messages.map(withOwnToolIds);
  if (messages.every((message, i) => message === (request.body.messages as unknown[])[i])) return undefined;
  const body: Json = { ...request.body, messages };
  return { body, raw: JSON.stringify(body), stream: request.stream };
}

/**
 * What a Chat passthrough changes: OpenRouter's own fields fitted to an upstream that is not
 * OpenRouter, carried tool call ids restored, and a stream asks for usage.
 */
function prepareChat(request: PassthroughRequest, target?: PassthroughTarget): PreparedPassthrough | undefined {
  const fitted = withoutOpenRouterFields(request, target);
  const restored = restoreToolIds(fitted ?? request);
  const asked = askForStreamUsage(restored ?? fitted ?? request);
  const out = asked ?? restored ?? fitted;
  if (!fitted || !out) return out;
  // `reportCost` goes with `adapted` (maybe empty), so a request without OpenRouter's fields is asked one thing less.
  const prepared: PreparedPassthrough = fitted.reportCost ? { ...out, adapted: fitted.adapted, reportCost: true } : fitted.adapted.length > 0 ? { ...out, adapted: fitted.adapted } : out;
  return fitted.convertAnswer ? { ...prepared, convertAnswer: true } : prepared;
}

/**
 * A stream that did not ask for usage asks for it (billing needs it); the client then gets no
 * usage chunk. OpenRouter's `usage: {include: true}` (to an OpenRouter upstream) asks as well.
 */
function askForStreamUsage(request: PassthroughRequest): (PassthroughRequest & { dropUsageRecords: boolean }) | undefined {
  const { body, raw, stream } = request;
  const options = body.stream_options;
  if (!stream || (isRecord(options) && options.include_usage === true)) return undefined;
  const streamOptions = withField(isRecord(options) ? options : {}, 'include_usage', true);
  const changed = withField(body, 'stream_options', streamOptions);
  const text = (options === undefined ? withIncludeUsage(raw) : undefined) ?? JSON.stringify(changed);
  const wanted = isRecord(body.usage) && body.usage.include === true;
  return { body: changed, raw: text, stream, dropUsageRecords: !wanted };
}

/** Chat's usage chunk (`choices: []` with a usage object). */
function isUsageOnlyChunk(record: WireRecord): boolean {
  const data = record.data;
  return data.charCodeAt(0) === 123 /* { */ && findUsageObject(data) !== -1 && findEmptyChoices(data) !== -1;
}

function dropUsageChunk(record: WireRecord, context: RewriteContext): null | undefined {
  return context.dropUsageRecords && isUsageOnlyChunk(record) ? null : undefined;
}

/**
 * Chat passthrough: streams always carry usage upstream (the usage chunk the client did not ask
 * for is dropped); the gateway's carried tool call ids go back to the calls' own. Only the usage
 * chunk is rewritten or read past the first chunk: a burst is searched once for `"usage"`.
 */
export const chatPassthrough: PassthroughRules = {
  read: readChatRequest,
  capOutput: (body, max) => capFields(body, ['max_tokens', 'max_completion_tokens'], max),
  prepare: prepareChat,
  modelFallbacks: 'models',
  rewrite: dropUsageChunk,
  marker: CHAT_MARKER,
};
