import type { InboundBody, RequestFacts } from '../types.ts';
import { FieldChecker, MODEL_FIELD, measureInput, requireFields } from '../shared/index.ts';

/** Completions bodies carry no media. */
const TEXT_ONLY = { isMedia: () => false };

/**
 * What billing and routing read of a legacy Completions body — all a passthrough reads (the
 * upstream judges the rest: `prompt`'s four shapes, `suffix`, `logprobs`, `echo`, `best_of`):
 * model, stream and the output cap; the input bound is measured over `prompt` and `suffix`.
 */
export function readCompletionsRequest({ body: raw }: InboundBody): RequestFacts {
  const body = requireFields(raw, { model: MODEL_FIELD }) as Record<string, unknown> & { model: string };
  const check = new FieldChecker();
  const stream = check.boolean(body.stream, 'stream') ?? false;
  const maxTokens = check.number(body.max_tokens, 'max_tokens', { min: 0, integer: true });
  check.throwIfAny();
  const input = measureInput([body.prompt, body.suffix], TEXT_ONLY);
  const facts: RequestFacts = { model: body.model, stream, inputBound: input.bound, inputEstimate: input.estimate };
  if (maxTokens !== undefined) facts.maxTokens = maxTokens;
  return facts;
}
