import { validationError } from '../errors/index.ts';
import type { EmbeddingCall, EmbeddingResult } from '../plugin-kit/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { NoMediaOutput } from './no-media-output.ts';

/** Inputs one request may carry, and tokens one token-array input may hold, as OpenAI bounds them. */
export const EMBEDDING_LIMITS = { inputs: 2048, tokensPerInput: 8192 } as const;

/** One embeddings request (OpenAI's body), checked: the model, the inputs and what they cost before the upstream says. */
export interface EmbeddingRequest {
  model: string;
  /** In order: texts, or token arrays where the client sent token ids. */
  input: Array<string | number[]>;
  /** Input tokens to charge when the upstream gives none (~4 characters a token; a token array its length). */
  estimatedInput: number;
  body: Record<string, unknown>;
}

function isTokens(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((id) => Number.isSafeInteger(id) && (id as number) >= 0);
}

/**
 * `input` as OpenAI takes it: a string, an array of strings, one token array (`[1, 2, 3]`) or
 * an array of token arrays — never empty, at most 2048 inputs of at most 8192 tokens each.
 */
function inputsOf(value: unknown): Array<string | number[]> {
  const fail = (): never => {
    throw validationError({ input: 'must be a non-empty string, an array of strings, an array of token ids, or an array of token-id arrays' });
  };
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || value.length === 0) return fail();
  const list: Array<string | number[]> = isTokens(value) ? [value] : value.every((item) => typeof item === 'string' || isTokens(item)) ? (value as Array<string | number[]>) : fail();
  if (list.length > EMBEDDING_LIMITS.inputs) throw validationError({ input: `must have at most ${EMBEDDING_LIMITS.inputs} items` });
  if (list.some((item) => typeof item !== 'string' && item.length > EMBEDDING_LIMITS.tokensPerInput)) throw validationError({ input: `a token array must have at most ${EMBEDDING_LIMITS.tokensPerInput} tokens` });
  return list;
}

/** One input's tokens before the upstream says: ~4 characters a token (at least one), a token array its length. */
function estimateInputTokens(input: string | readonly number[]): number {
  return typeof input === 'string' ? Math.max(1, Math.ceil(input.length / 4)) : input.length;
}

/**
 * The input tokens billed (`total`), shared out over the inputs in proportion to their estimates,
 * largest remainders first, so they add up to `total`: a count per input for a format whose
 * answer has one (Vertex AI's `statistics.token_count`) when the upstream counted them together.
 */
export function shareInputTokens(inputs: ReadonlyArray<string | readonly number[]>, total: number): number[] {
  const weights = inputs.map(estimateInputTokens);
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights;
  const shares = weights.map((weight) => (weight * total) / sum);
  const out = shares.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = shares.map((share, i) => [share - out[i], i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i] += 1;
    left -= 1;
  }
  return out;
}

/** An embeddings body (the route's or a batch line's) → the checked request; 422 naming the field otherwise. */
export function decodeEmbeddingRequest(body: Record<string, unknown>): EmbeddingRequest {
  if (typeof body.model !== 'string' || body.model === '') throw validationError({ model: body.model === undefined || body.model === null ? 'is required' : 'must be a non-empty string' });
  const input = inputsOf(body.input);
  const estimatedInput = input.reduce((sum, item) => sum + estimateInputTokens(item), 0);
  return { model: body.model, input, estimatedInput, body };
}

function isVector(value: unknown, base64: boolean): boolean {
  if (base64 && typeof value === 'string') return value !== '';
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const number of value) if (typeof number !== 'number') return false;
  return true;
}

/**
 * The vector of every input in an embeddings result (OpenAI's list body), in input order
 * (`data[].index`, else the item's place): a list of numbers, or base64 text where the request
 * asked `encoding_format: "base64"`. A TypeError saying what is missing otherwise: a plugin broke
 * the media contract, and the exchange answers 502 before anything is charged.
 */
export function embeddingVectors(result: unknown, request: EmbeddingRequest): Array<number[] | string> {
  const body = typeof result === 'object' && result !== null ? (result as { body?: unknown }).body : undefined;
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw new TypeError('an embeddings result without its data list');
  if (data.length === 0) throw new NoMediaOutput('embeddings');
  const base64 = request.body.encoding_format === 'base64';
  const count = request.input.length;
  const vectors: Array<number[] | string> = new Array(count);
  data.forEach((item: unknown, i) => {
    const { index = i, embedding } = typeof item === 'object' && item !== null ? (item as { index?: unknown; embedding?: unknown }) : {};
    if (!Number.isSafeInteger(index) || (index as number) < 0 || (index as number) >= count || vectors[index as number] !== undefined) throw new TypeError(`an embeddings result whose data[${i}].index is not one of its ${count} inputs, once`);
    if (!isVector(embedding, base64)) throw new TypeError(`an embeddings result whose data[${i}].embedding is no vector`);
    vectors[index as number] = embedding as number[] | string;
  });
  // An input without its vector: the provider's answer is short of it (its failure, named so), as an empty one is.
  for (let i = 0; i < count; i++) if (vectors[i] === undefined) throw new NoMediaOutput(`embedding for input ${i} (of ${count})`);
  return vectors;
}

/** The provider part of an embeddings media call: one attempt at a model, and what its result used. */
export function embeddingAttempt(request: EmbeddingRequest) {
  return {
    task: 'embedding' as const,
    model: request.model,
    run: (candidate: CatalogModel, signal: AbortSignal): Promise<EmbeddingResult> => {
      const call: EmbeddingCall = { model: candidate.upstreamId, input: request.input, body: { ...request.body, model: candidate.upstreamId }, signal };
      return candidate.provider.instance.embeddings!(call);
    },
    used: (result: EmbeddingResult) => {
      // Read before the charge: an answer without a vector for every input is the provider's failure (502, nothing charged).
      embeddingVectors(result, request);
      return { usage: result.inputTokens === undefined ? undefined : { inputTokens: result.inputTokens, outputTokens: 0 }, estimatedInput: request.estimatedInput, media: {} };
    },
  };
}
