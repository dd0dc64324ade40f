import type { InlineFile } from '../types.ts';
import { fileIdFace, isRecord } from '../shared/index.ts';

type Part = Record<string, unknown>;

/** The file id of a `document` or `image` block whose `source` is `{type: "file", file_id}`. */
function fileIdOf(part: Part): string | undefined {
  if ((part.type !== 'document' && part.type !== 'image') || !isRecord(part.source) || part.source.type !== 'file') return undefined;
  const id = part.source.file_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The block with its source inline: base64 (an image, a PDF, any other type for the upstream to judge), or plain text for a `text/*` document. */
function inlinePart(part: Part, file: InlineFile): Part {
  if (part.type === 'document' && file.mimeType.startsWith('text/')) {
    return { ...part, source: { type: 'text', media_type: 'text/plain', data: Buffer.from(file.data, 'base64').toString('utf8') } };
  }
  return { ...part, source: { type: 'base64', media_type: file.mimeType, data: file.data } };
}

/** Anthropic Messages: `document` and `image` blocks naming a file uploaded to the gateway by `file_id`. */
export const messagesStoredFiles = fileIdFace('messages', fileIdOf, inlinePart);
