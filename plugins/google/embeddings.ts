import { GatewayError, readOkJson, UpstreamHttpError, type EmbeddingCall, type EmbeddingResult, type HttpClient } from 'gateway/plugin-kit';
import type { GooglePaths } from './endpoints.ts';

/** What the embeddings call needs from the plugin's setup. */
export interface GoogleEmbeddingContext {
  providerId: string;
  vertex: boolean;
  client: HttpClient;
  /** The API key header (AI Studio). */
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

/**
 * OpenAI's `POST /v1/embeddings` (and the Gemini face's `embedContent`) on a Google embedding
 * model (`gemini-embedding-001`, `text-embedding-004`): AI Studio's `:batchEmbedContents`, one
 * request per input (`outputDimensionality` from `dimensions`), answered in OpenAI's list shape.
 * Google reports no token count there: the gateway's estimate is the usage. Vertex AI's
 * embeddings (`:predict`) are not served yet.
 */
export function googleEmbeddings(context: GoogleEmbeddingContext): (call: EmbeddingCall) => Promise<EmbeddingResult> {
  return async (call) => {
    if (context.vertex) throw new GatewayError('bad_request', `The provider '${context.providerId}' (api: 'vertex') does not serve embeddings yet; a provider with api: 'gemini' (AI Studio) does.`);
    const texts = textsOf(call);
    const dimensions = typeof call.body.dimensions === 'number' ? call.body.dimensions : undefined;
    const requests = texts.map((text) => {
      const request: Record<string, unknown> = { model: `models/${call.model}`, content: { parts: [{ text }] } };
      if (dimensions !== undefined) request.outputDimensionality = dimensions;
      return request;
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json', ...context.headers, ...(await context.authorize()) };
    const response = await context.client.request({ method: 'POST', path: context.paths.embed(call.model), headers, body: JSON.stringify({ requests }), signal: call.signal });
    const answer = await readOkJson(response);
    const embeddings = Array.isArray(answer.embeddings) ? answer.embeddings : [];
    const vectors = embeddings.map((embedding) => (embedding && typeof embedding === 'object' ? (embedding as { values?: unknown }).values : undefined));
    if (vectors.length !== texts.length || !vectors.every((values) => Array.isArray(values) && values.every((v) => typeof v === 'number'))) {
      throw new UpstreamHttpError(502, { error: { message: `the provider returned ${vectors.length} embeddings for ${texts.length} inputs` } });
    }
    const base64 = call.body.encoding_format === 'base64';
    const data = (vectors as number[][]).map((values, index) => ({ object: 'embedding', index, embedding: encoded(values, base64) }));
    // Google counts no tokens here: the body says the gateway's estimate (~4 characters a token), which also bills the call.
    const estimate = texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
    return { body: { object: 'list', data, model: call.model, usage: { prompt_tokens: estimate, total_tokens: estimate } } };
  };
}
