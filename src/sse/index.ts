/** Server-sent events apart from meaning: cutting bytes at record boundaries, parsing records, framing them. */
export { SseParser, parseSse, type SseRecord } from './parse-sse.ts';
export { formatSse, JsonLine, jsonRecord, SSE_CONTENT_TYPE, writeSse } from './write-sse.ts';
export { RecordAligner } from './align-records.ts';
export { RecordReader } from './read-records.ts';
