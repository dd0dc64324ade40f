import { RecordReader, SSE_CONTENT_TYPE, writeSse } from '../../sse/index.ts';
import type { FrameWriter, StreamFraming } from '../types.ts';

/** SSE has no opening or closing: one stateless writer serves every stream. */
const SSE_WRITER: FrameWriter = {
  write: writeSse,
  passed() {},
  end: () => '',
};

/** Server-sent events: what the three OpenAI and Anthropic formats stream in. */
export const sseFraming: StreamFraming = {
  contentType: SSE_CONTENT_TYPE,
  createReader: () => new RecordReader(),
  createWriter: () => SSE_WRITER,
};
