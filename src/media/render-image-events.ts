import type { ImageResult } from '../plugin-kit/index.ts';
import { jsonRecord, writeSse } from '../sse/index.ts';
import type { ImageRequest } from './decode-image-request.ts';

const OUTPUT_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

/**
 * OpenAI's image stream (`stream: true` on generations and edits) as SSE text: one
 * `image_generation.completed` (`image_edit.completed`) event per image, with its b64 bytes.
 * No partial images: OpenAI's contract lets the final image come before any partial one.
 */
export function renderImageEvents(operation: 'generation' | 'edit', request: ImageRequest, result: ImageResult, createdAt: number): string {
  const type = operation === 'edit' ? 'image_edit.completed' : 'image_generation.completed';
  const input = result.usage?.inputTokens ?? 0;
  const output = result.usage?.outputTokens ?? 0;
  const usage = { input_tokens: input, output_tokens: output, total_tokens: input + output, input_tokens_details: { text_tokens: input, image_tokens: 0 } };
  const background = typeof request.extra.background === 'string' ? request.extra.background : 'auto';
  return writeSse(
    result.images.map((image) =>
      jsonRecord(type, {
        type,
        b64_json: Buffer.from(image.data).toString('base64'),
        created_at: createdAt,
        size: request.size,
        quality: request.quality ?? 'auto',
        background,
        output_format: OUTPUT_FORMATS[image.contentType.split(';')[0].trim().toLowerCase()] ?? 'png',
        usage,
      }),
    ),
  );
}
