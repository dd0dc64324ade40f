import { GatewayError, UpstreamHttpError, type EmbeddingCall, type EmbeddingResult, type HttpClient } from 'gateway/plugin-kit';
import type { GooglePaths } from './endpoints.ts';
import { postJson } from './post-json.ts';

/** What the embeddings call needs from the plugin's setup. */
export interface GoogleEmbeddingContext {
  vertex: boolean;
  client: HttpClient;
  /** The API key header (AI Studio) or a fresh bearer token (Vertex). */
  authorize: () => Promise<Record<string, string>>;
  paths: GooglePaths;
  headers: Record<string, string>;
}

/** The texts of a call; Google embeds text only (OpenAI's token-id inputs have no counterpart). */
function textsOf(call: EmbeddingCall): string[] {
  return call.input.map((input, i) => {
    if (typeof input !== 'string') throw new GatewayError('validation_error', 'Google embeds texts, not token ids.', { details: { fields: { [`input[${i}]`]: 'must be a string for a Google embedding model' } } });
    return input;
  });
}

/** A vector in the encoding the client asked for (`base64`: little-endian float32, as OpenAI sends it). */
function encoded(values: number[], base64: boolean): number[] | string {
  return base64 ? Buffer.from(new Float32Array(values).buffer).toString('base64') : values;
}

/** Vertex AI embeds one text a request (gemini-embedding-001 takes no more): this many at a time. */
const VERTEX_PARALLEL = 8;

/** What one upstream answer gave: the vectors in input order, and the tokens when Google counted them. */
interface Vectors {
  vectors: unknown[];
  tokens?: number;
}

/** The numbers of a vector, or undefined when it is not one. */
function numbers(values: unknown): number[] | undefined {
  return Array.isArray(values) && values.every((v) => typeof v === 'number') ? (values as number[]) : undefined;
}

/**
 * OpenAI's `POST /v1/embeddings` (and the Gemini face's `embedContent`) on a Google embedding
 * model (`gemini-embedding-001`, `text-embedding-004`), answered in OpenAI's list shape with
 * `dimensions` as `outputDimensionality`. AI Studio: one `:batchEmbedContents` with a request per
 * input; Google counts no tokens there, so the usage is the gateway's estimate (~4 characters a
 * token). Vertex AI: `:predict` with one instance per call (up to 8 at a time), its
 * `statistics.token_count` summed as the usage.
 */
export function googleEmbeddings(context: GoogleEmbeddingContext): (call: EmbeddingCall) => Promise<EmbeddingResult> {
  const post = (call: EmbeddingCall, body: Record<string, unknown>) => postJson(context, context.paths.embed(call.model), body, call.signal);

  async function aiStudio(call: EmbeddingCall, texts: string[], dimensions: number | undefined): Promise<Vectors> {
    const requests = texts.map((text) => {
      const request: Record<string, unknown> = { model: `models/${call.model}`, content: { parts: [{ text }] } };
      if (dimensions !== undefined) request.outputDimensionality = dimensions;
      return request;
    });
    const answer = await post(call, { requests });
    const embeddings = Array.isArray(answer.embeddings) ? answer.embeddings : [];
    return { vectors: embeddings.map((embedding) => (embedding && typeof embedding === 'object' ? (embedding as { values?: unknown }).values : undefined)) };
  }

  async function vertexPredict(call: EmbeddingCall, texts: string[], dimensions: number | undefined): Promise<Vectors> {
    const vectors: unknown[] = new Array(texts.length);
    let tokens: number | undefined = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < texts.length) {
        const at = next++;
        const body: Record<string, unknown> = { instances: [{ content: texts[at] }] };
        if (dimensions !== undefined) body.parameters = { outputDimensionality: dimensions };
        const answer = await post(call, body);
        const prediction = Array.isArray(answer.predictions) ? (answer.predictions[0] as { embeddings?: { values?: unknown; statistics?: { token_count?: unknown } } } | undefined) : undefined;
        vectors[at] = prediction?.embeddings?.values;
        const count = prediction?.embeddings?.statistics?.token_count;
        tokens = typeof count === 'number' && tokens !== undefined ? tokens + count : undefined;
      }
    };
    await Promise.all(Array.from({ length: Math.min(VERTEX_PARALLEL, texts.length) }, worker));
    return { vectors, tokens };
  }

  return async (call) => {
    const texts = textsOf(call);
    const dimensions = typeof call.body.dimensions === 'number' ? call.body.dimensions : undefined;
    const { vectors, tokens } = await (context.vertex ? vertexPredict : aiStudio)(call, texts, dimensions);
    const values = vectors.map(numbers);
    if (values.length !== texts.length || values.some((vector) => vector === undefined)) {
      throw new UpstreamHttpError(502, { error: { message: `the provider returned ${values.filter(Boolean).length} embeddings for ${texts.length} inputs` } });
    }
    const base64 = call.body.encoding_format === 'base64';
    const data = (values as number[][]).map((vector, index) => ({ object: 'embedding', index, embedding: encoded(vector, base64) }));
    const counted = tokens !== undefined;
    const promptTokens = counted ? tokens : texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
    const body = { object: 'list', data, model: call.model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
    return counted ? { body, inputTokens: promptTokens } : { body };
  };
}
