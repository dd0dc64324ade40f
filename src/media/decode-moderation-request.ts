import { validationError } from '../errors/index.ts';
import type { ModerationCall, ModerationResult } from '../plugin-kit/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { NoMediaOutput } from './no-media-output.ts';

/** OpenAI's default when a moderations request names no model. */
export const DEFAULT_MODERATION_MODEL = 'omni-moderation-latest';

/** One moderations request (OpenAI's body), checked: the model, the input and what it costs before the upstream says. */
export interface ModerationRequest {
  model: string;
  input: ModerationCall['input'];
  /** Input tokens to charge (~4 characters a token of text; moderation answers carry no usage). */
  estimatedInput: number;
  body: Record<string, unknown>;
}

const INPUT_RULE = 'must be a non-empty string, an array of strings, or an array of {type: "text", text} and {type: "image_url", image_url: {url}} objects';

/** A multimodal part's problem, or undefined when OpenAI would read it. */
function partProblem(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return INPUT_RULE;
  const { type, text, image_url: image } = part as Record<string, unknown>;
  if (type === 'text') return typeof text === 'string' ? undefined : 'a text part must have a string `text`';
  if (type === 'image_url') return typeof (image as { url?: unknown } | null)?.url === 'string' ? undefined : 'an image_url part must have `image_url.url`';
  return INPUT_RULE;
}

/** `input` as OpenAI takes it: a string, strings (one result each), or text and image parts (one result for all). */
function inputOf(value: unknown): ModerationCall['input'] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value) || value.length === 0) throw validationError({ input: value === undefined || value === null ? 'is required' : INPUT_RULE });
  if (value.every((item) => typeof item === 'string')) return value as string[];
  const problem = value.map(partProblem).find((found) => found !== undefined);
  if (problem) throw validationError({ input: problem });
  return value as Array<Record<string, unknown>>;
}

/** ~4 characters a token of text, at least one per input; an image part counts as one. */
function estimateOf(input: ModerationCall['input']): number {
  const texts = typeof input === 'string' ? [input] : input.map((item) => (typeof item === 'string' ? item : typeof item.text === 'string' ? item.text : ''));
  return texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
}

/** A moderations body (OpenAI's) → the checked request, `model` defaulting to OpenAI's; 422 naming the field otherwise. */
export function decodeModerationRequest(body: Record<string, unknown>): ModerationRequest {
  const model = body.model === undefined || body.model === null ? DEFAULT_MODERATION_MODEL : body.model;
  if (typeof model !== 'string' || model === '') throw validationError({ model: 'must be a non-empty string' });
  const input = inputOf(body.input);
  return { model, input, estimatedInput: estimateOf(input), body };
}

/** How many results OpenAI answers `input` with: one per text of a string list, one for a string or a list of parts. */
function resultCountOf(input: ModerationCall['input']): number {
  return Array.isArray(input) && input.every((item) => typeof item === 'string') ? input.length : 1;
}

/**
 * The results of a moderations answer (OpenAI's body), one per input, each with its `flagged`
 * verdict and its `categories`. A TypeError saying what is missing otherwise: a plugin broke the
 * media contract, and the exchange answers 502 before anything is charged.
 */
export function moderationResults(result: unknown, request: ModerationRequest): Array<Record<string, unknown>> {
  const body = typeof result === 'object' && result !== null ? (result as { body?: unknown }).body : undefined;
  const results = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { results?: unknown }).results : undefined;
  if (!Array.isArray(results)) throw new TypeError('a moderations result without its results list');
  if (results.length === 0) throw new NoMediaOutput('moderation results');
  const count = resultCountOf(request.input);
  // Fewer than asked: the provider's answer is short of some inputs' verdicts (its failure, named so); more is no answer to this request.
  if (results.length < count) throw new NoMediaOutput(`moderation results for ${count - results.length} of its ${count} inputs`);
  if (results.length > count) throw new TypeError(`a moderations result with ${results.length} results for ${count} inputs`);
  // An index loop: a sparse list's hole is a missing result, which .every() would skip.
  for (let i = 0; i < count; i++) {
    const item: unknown = results[i];
    const { flagged, categories } = typeof item === 'object' && item !== null ? (item as { flagged?: unknown; categories?: unknown }) : {};
    if (typeof flagged !== 'boolean') throw new TypeError(`a moderations result whose results[${i}].flagged is no boolean`);
    if (typeof categories !== 'object' || categories === null || Array.isArray(categories)) throw new TypeError(`a moderations result whose results[${i}].categories is no object`);
  }
  return results as Array<Record<string, unknown>>;
}

/** The provider part of a moderations media call: one attempt at a model, and what its result used. */
export function moderationAttempt(request: ModerationRequest) {
  return {
    task: 'moderation' as const,
    model: request.model,
    run: (candidate: CatalogModel, signal: AbortSignal): Promise<ModerationResult> => {
      const call: ModerationCall = { model: candidate.upstreamId, input: request.input, body: { ...request.body, model: candidate.upstreamId }, signal };
      return candidate.provider.instance.moderations!(call);
    },
    used: (result: ModerationResult) => {
      // Read before the charge: an answer without a verdict for every input is the provider's failure (502, nothing charged).
      moderationResults(result, request);
      return { usage: undefined, estimatedInput: request.estimatedInput, media: {} };
    },
  };
}
