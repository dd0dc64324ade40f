import { validationError } from '../../errors/index.ts';
import { isRecord } from '../shared/index.ts';
import type { EmbeddingsFace, EmbeddingsTarget } from '../types.ts';
import { protoName } from './proto-json.ts';
import { readGeminiPath } from './read-path.ts';

const EMBED = new Set(['embedContent', 'batchEmbedContents']);

/** A field by either of its proto JSON names. */
function field(object: Record<string, unknown>, camel: string, snake: string): unknown {
  return object[protoName(object, camel, snake)];
}

/** The text of one `EmbedContentRequest`'s `content` (its text parts joined); 422 naming `where` for anything else. */
function textOf(request: unknown, where: string): string {
  const content = isRecord(request) ? request.content : undefined;
  const parts = isRecord(content) ? content.parts : undefined;
  if (!Array.isArray(parts) || parts.length === 0) throw validationError({ [`${where}.content.parts`]: 'must be a non-empty array of text parts' });
  return parts
    .map((part, i) => {
      if (!isRecord(part) || typeof part.text !== 'string') throw validationError({ [`${where}.content.parts[${i}]`]: 'only text parts can be embedded through the gateway' });
      return part.text;
    })
    .join('');
}

/** `outputDimensionality` of one request, or undefined. */
function dimensionsOf(request: unknown, where: string): number | undefined {
  const value = isRecord(request) ? field(request, 'outputDimensionality', 'output_dimensionality') : undefined;
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw validationError({ [`${where}.outputDimensionality`]: 'must be a whole number, 1 or more' });
  return value as number;
}

/** The requests of a body: `requests` of a batch, else the body itself (`embedContent`). */
function requestsOf(body: Record<string, unknown>, target: EmbeddingsTarget): Array<[request: unknown, where: string]> {
  if (!target.batch) return [[body, 'body']];
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) throw validationError({ requests: 'must be a non-empty array' });
  return requests.map((request, i) => [request, `requests[${i}]`]);
}

/**
 * Gemini's `POST /v1beta/models/{model}:embedContent` (`{content, outputDimensionality?}` →
 * `{embedding: {values}}`) and `:batchEmbedContents` (`{requests: [...]}` → `{embeddings: [{values}]}`,
 * what `@google/genai`'s `models.embedContent` always asks), served by the gateway's embedding
 * models as OpenAI's `input` and `dimensions`. `taskType` and `title` have no OpenAI counterpart.
 */
export const geminiEmbeddings: EmbeddingsFace = {
  readPath(pathname, query) {
    const target = readGeminiPath(pathname, query, EMBED);
    return target && { model: target.model, batch: target.action === 'batchEmbedContents' };
  },
  decode(body, target) {
    const requests = requestsOf(body, target);
    const input = requests.map(([request, where]) => textOf(request, where));
    const sizes = new Set(requests.map(([request, where]) => dimensionsOf(request, where)));
    if (sizes.size > 1) throw validationError({ requests: 'must all ask for the same outputDimensionality' });
    const [dimensions] = sizes;
    return dimensions === undefined ? { model: target.model, input } : { model: target.model, input, dimensions };
  },
  encode(vectors, target) {
    return target.batch ? { embeddings: vectors.map((values) => ({ values })) } : { embedding: { values: vectors[0] ?? [] } };
  },
};
