import { GatewayError, validationError } from '../../errors/index.ts';
import { isRecord } from '../shared/index.ts';
import type { EmbeddingsFace, EmbeddingsTarget } from '../types.ts';
import { protoName } from './proto-json.ts';
import { isVertexPath, readGeminiPath } from './read-path.ts';

const EMBED = new Set(['embedContent', 'batchEmbedContents', 'predict']);

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

/** `outputDimensionality` of one request (Vertex's `embedContent` has it in `embedContentConfig`), or undefined. */
function dimensionsOf(request: unknown, where: string, vertex: boolean): number | undefined {
  if (!isRecord(request)) return undefined;
  const config = vertex ? field(request, 'embedContentConfig', 'embed_content_config') : undefined;
  const inConfig = isRecord(config) ? field(config, 'outputDimensionality', 'output_dimensionality') : undefined;
  const value = field(request, 'outputDimensionality', 'output_dimensionality') ?? inConfig;
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
 * Vertex AI's text-embedding `:predict`: `{instances: [{content, task_type?, title?}], parameters?: {outputDimensionality?, autoTruncate?}}`
 * (what `@google/genai` in Vertex mode asks for every embedding model but Gemini's newer ones) → OpenAI's body.
 */
function decodePredict(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length === 0) throw validationError({ instances: 'must be a non-empty array' });
  const input = instances.map((instance, i) => {
    // Imagen's generateImages asks the same URL; it comes here when the model makes no images.
    if (isRecord(instance) && instance.content === undefined && typeof instance.prompt === 'string') {
      throw new GatewayError('bad_request', `The model '${model}' makes no images: instances[${i}] holds a prompt, as generateImages sends, and only an image model draws one (\`gateway models ls\` lists them as image_generation).`, { details: { model } });
    }
    if (!isRecord(instance) || typeof instance.content !== 'string') throw validationError({ [`instances[${i}].content`]: 'must be a string (only text can be embedded through the gateway)' });
    return instance.content;
  });
  const parameters = body.parameters;
  if (parameters !== undefined && parameters !== null && !isRecord(parameters)) throw validationError({ parameters: 'must be an object' });
  const dimensions = isRecord(parameters) ? dimensionsOf(parameters, 'parameters', false) : undefined;
  return dimensions === undefined ? { model, input } : { model, input, dimensions };
}

/**
 * Gemini's `POST /v1beta/models/{model}:embedContent` (`{content, outputDimensionality?}` →
 * `{embedding: {values}}`) and `:batchEmbedContents` (`{requests: [...]}` → `{embeddings: [{values}]}`,
 * what `@google/genai`'s `models.embedContent` always asks), and on Vertex AI's paths `:predict`
 * (→ `{predictions: [{embeddings: {values, statistics: {token_count}}}]}`) and `:embedContent` with
 * `embedContentConfig` (→ `{embedding, usageMetadata}`), served by the gateway's embedding models as
 * OpenAI's `input` and `dimensions`. `taskType` and `title` have no OpenAI counterpart.
 */
export const geminiEmbeddings: EmbeddingsFace = {
  readPath(pathname, query) {
    const target = readGeminiPath(pathname, query, EMBED);
    const vertex = isVertexPath(pathname);
    if (!target || (target.action === 'predict' && !vertex)) return undefined;
    if (target.action === 'predict') return { model: target.model, batch: true, shape: 'predict' };
    return vertex ? { model: target.model, batch: target.action === 'batchEmbedContents', shape: 'vertex' } : { model: target.model, batch: target.action === 'batchEmbedContents' };
  },
  decode(body, target) {
    if (target.shape === 'predict') return decodePredict(body, target.model);
    const requests = requestsOf(body, target);
    const input = requests.map(([request, where]) => textOf(request, where));
    const sizes = new Set(requests.map(([request, where]) => dimensionsOf(request, where, target.shape === 'vertex')));
    if (sizes.size > 1) throw validationError({ requests: 'must all ask for the same outputDimensionality' });
    const [dimensions] = sizes;
    return dimensions === undefined ? { model: target.model, input } : { model: target.model, input, dimensions };
  },
  encode(vectors, target, tokens) {
    if (target.shape === 'predict') return { predictions: vectors.map((values, i) => ({ embeddings: { values, statistics: { token_count: tokens[i] ?? 0 } } })) };
    if (target.batch) return { embeddings: vectors.map((values) => ({ values })) };
    const one = { embedding: { values: vectors[0] ?? [] } };
    return target.shape === 'vertex' ? { ...one, usageMetadata: { promptTokenCount: tokens[0] ?? 0 } } : one;
  },
};
