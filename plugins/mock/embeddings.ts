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

/** ~4 characters a token, at least one per input: what the mock reports as usage. */
function tokensOf(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Deterministic embeddings in OpenAI's list shape (`encoding_format: "base64"` as little-endian float32). */
export async function mockEmbeddings(call: EmbeddingCall): Promise<EmbeddingResult> {
  const dimensions = typeof call.body.dimensions === 'number' ? call.body.dimensions : DEFAULT_DIMENSIONS;
  const base64 = call.body.encoding_format === 'base64';
  const data = call.input.map((text, index) => {
    const vector = vectorOf(text, dimensions);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const inputTokens = call.input.reduce((sum, text) => sum + tokensOf(text), 0);
  return { body: { object: 'list', data, model: call.model, usage: { prompt_tokens: inputTokens, total_tokens: inputTokens } }, inputTokens };
}
