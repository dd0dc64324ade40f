import type { InlineFile } from '../types.ts';
import { dataUrlOf, fileIdFace } from '../shared/index.ts';

type Part = Record<string, unknown>;

/** The file id of an `input_file` or `input_image` part. */
function fileIdOf(part: Part): string | undefined {
  if (part.type !== 'input_file' && part.type !== 'input_image') return undefined;
  const id = part.file_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The part carrying `file` inline: `input_image` with a data URL, or `input_file` with `file_data` and its filename. */
function inlinePart(part: Part, file: InlineFile): Part {
  const { file_id: _id, ...rest } = part;
  if (part.type === 'input_image' || file.mimeType.startsWith('image/')) {
    const { filename: _name, ...image } = rest;
    return { ...image, type: 'input_image', image_url: dataUrlOf(file), ...(image.detail === undefined ? { detail: 'auto' } : {}) };
  }
  const filename = typeof part.filename === 'string' && part.filename !== '' ? part.filename : (file.filename ?? 'document');
  return { ...rest, filename, file_data: dataUrlOf(file) };
}

/** Responses: `input_file` and `input_image` parts naming a file uploaded to the gateway's `/v1/files`. */
export const responsesStoredFiles = fileIdFace('input', fileIdOf, inlinePart);
