export { SseParser, parseSse, type SseRecord } from './parse-sse.ts';
export { formatSse, formatSseJson } from './write-sse.ts';
