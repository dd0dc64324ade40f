import { createHash } from 'node:crypto';
import type { EmbeddingCall, EmbeddingResult, ModelSpec } from 'gateway/plugin-kit';

/** The mock's embedding model: `text-embedding-3-small`'s shape (1536 dims unless `dimensions`), offline. */
export const EMBEDDING_MODELS: ModelSpec[] = [
  { id: 'embed', type: 'embedding', capabilities: [], pricing: { input: 0.02 }, displayName: 'Mock Embeddings', modalities: { input: ['text'], output: ['text'] } },
];

const DEFAULT_DIMENSIONS = 1536;

/** A unit vector drawn from the text's SHA-256 (a counter-mode stream): the same text, the same vector, on every run. */
function vectorOf(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}\u0000${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && values.length < dimensions; i += 4) values.push(digest.readUInt32BE(i) / 0xffffffff - 0.5);
  }
  const norm = Math.sqrt(values.reduce((sum, v) => sum + v * v, 0)) || 1;
  return values.map((v) => v / norm);
}

/** ~4 characters a token, at least one per input (a token array: its length): what the mock reports as usage. */
function tokensOf(input: string | number[]): number {
  return typeof input === 'string' ? Math.max(1, Math.ceil(input.length / 4)) : input.length;
}

/** What a vector is drawn from: the text, or the token ids (never equal to a text's). */
function seedOf(input: string | number[]): string {
  return typeof input === 'string' ? input : `\u0001tokens:${input.join(',')}`;
}

/** Deterministic embeddings in OpenAI's list shape (`encoding_format: "base64"` as little-endian float32). */
export async function mockEmbeddings(call: EmbeddingCall): Promise<EmbeddingResult> {
  const dimensions = typeof call.body.dimensions === 'number' ? call.body.dimensions : DEFAULT_DIMENSIONS;
  const base64 = call.body.encoding_format === 'base64';
  const data = call.input.map((input, index) => {
    const vector = vectorOf(seedOf(input), dimensions);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const inputTokens = call.input.reduce((sum, input) => sum + tokensOf(input), 0);
  return { body: { object: 'list', data, model: call.model, usage: { prompt_tokens: inputTokens, total_tokens: inputTokens } }, inputTokens };
}
