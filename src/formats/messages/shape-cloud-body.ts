import { badRequest } from '../shared/index.ts';
import type { BodyShape, RouteTarget } from '../types.ts';

/** What an `anthropic-beta` header value may hold: printable ASCII. */
const HEADER_SAFE = /^[\x20-\x7e]*$/;

/**
 * A Messages body sent on a cloud path (Vertex `:rawPredict`, Bedrock `/invoke`) as `/v1/messages`
 * takes it: the model and stream flag from the path, no `anthropic_version` (the cloud's API
 * version: Anthropic's API refuses the field, and a Vertex or Bedrock upstream puts in its own),
 * and Bedrock's `anthropic_beta` list as the `anthropic-beta` header every Messages upstream reads.
 */
export function shapeCloudBody(body: Record<string, unknown>, target: RouteTarget, header: (name: string) => string | undefined): BodyShape {
  const shape: BodyShape = { set: { model: target.model, stream: target.stream }, remove: ['anthropic_version', 'anthropic_beta'] };
  const version = body.anthropic_version;
  if (version !== undefined && typeof version !== 'string') throw badRequest('anthropic_version: must be a string');
  const betas = body.anthropic_beta;
  if (betas === undefined) return shape;
  if (!Array.isArray(betas) || betas.some((beta) => typeof beta !== 'string')) throw badRequest('anthropic_beta: must be a list of strings');
  // Each goes upstream in a header: one a header cannot hold (a line break, a control or non-ASCII character) is the
  // client's 400, never a failed upstream call (which counted against the model's circuit, for every client of it).
  if (betas.some((beta) => !HEADER_SAFE.test(beta as string))) throw badRequest('anthropic_beta: beta names are printable ASCII (e.g. "interleaved-thinking-2025-05-14")');
  const all = [...(header('anthropic-beta')?.split(',') ?? []), ...(betas as string[])].map((beta) => beta.trim()).filter(Boolean);
  if (all.length > 0) shape.headers = { 'anthropic-beta': [...new Set(all)].join(',') };
  return shape;
}
