import { quotedFinder, withField } from '../../util/index.ts';
import type { PassthroughRequest, PassthroughRules, RewriteContext, WireRecord } from '../types.ts';
import { capFields, isRecord } from '../shared/index.ts';
import { readChatRequest } from './read-request.ts';

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

/** A stream that did not ask for usage asks for it (billing needs it); the client then gets no usage chunk. */
function askForStreamUsage(request: PassthroughRequest): (PassthroughRequest & { dropUsageRecords: boolean }) | undefined {
  const { body, raw, stream } = request;
  const options = body.stream_options;
  if (!stream || (isRecord(options) && options.include_usage === true)) return undefined;
  const streamOptions = withField(isRecord(options) ? options : {}, 'include_usage', true);
  const changed = withField(body, 'stream_options', streamOptions);
  const text = (options === undefined ? withIncludeUsage(raw) : undefined) ?? JSON.stringify(changed);
  return { body: changed, raw: text, stream, dropUsageRecords: true };
}

/** Chat's usage chunk (`choices: []` with a usage object). */
function isUsageOnlyChunk(record: WireRecord): boolean {
  const data = record.data;
  return data.charCodeAt(0) === 123 /* { */ && findUsageObject(data) !== -1 && findEmptyChoices(data) !== -1;
}

function dropUsageChunk(record: WireRecord, context: RewriteContext): null | undefined {
  return context.dropUsageRecords && isUsageOnlyChunk(record) ? null : undefined;
}

/** Chat passthrough: streams always carry usage upstream; the usage chunk the client did not ask for is dropped. */
export const chatPassthrough: PassthroughRules = {
  read: readChatRequest,
  capOutput: (body, max) => capFields(body, ['max_tokens', 'max_completion_tokens'], max),
  prepare: askForStreamUsage,
  rewrite: dropUsageChunk,
};
