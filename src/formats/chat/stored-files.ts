import type { InlineFile } from '../types.ts';
import { dataUrlOf, fileIdFace, isRecord } from '../shared/index.ts';

type Part = Record<string, unknown>;

/** The file id of a Chat `{type: "file", file: {file_id}}` part. */
function fileIdOf(part: Part): string | undefined {
  if (part.type !== 'file' || !isRecord(part.file)) return undefined;
  const id = part.file.file_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The part carrying `file` inline: an image as `image_url` (Chat's file part takes documents), else `file_data` with its filename. */
function inlinePart(part: Part, file: InlineFile): Part {
  if (file.mimeType.startsWith('image/')) return { type: 'image_url', image_url: { url: dataUrlOf(file) } };
  const own = part.file as Record<string, unknown>;
  const { file_id: _id, ...rest } = own;
  const filename = typeof own.filename === 'string' && own.filename !== '' ? own.filename : (file.filename ?? 'document');
  return { ...part, file: { ...rest, filename, file_data: dataUrlOf(file) } };
}

/** Chat Completions: `file` parts naming a file uploaded to the gateway's `/v1/files`. */
export const chatStoredFiles = fileIdFace('messages', fileIdOf, inlinePart);
