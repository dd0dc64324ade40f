import type { ChatRequest } from '../../ir/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { FieldChecker, MODEL_FIELD, assignDefined as set, collectExtra, isRecord, requireFields } from '../shared/index.ts';

/** Body fields mapped into the IR or refused here; everything else (`echo` among them) is kept in `extra`. */
const MAPPED = new Set([
  'model', 'prompt', 'stream', 'stream_options', 'max_tokens', 'temperature', 'top_p', 'n', 'stop', 'seed', 'presence_penalty',
  'frequency_penalty', 'user', 'suffix', 'logprobs', 'best_of', 'logit_bias',
]);

/** OpenAI's default `max_tokens` on this API (and vLLM's): a request without one asks for 16 tokens, converted or not. */
export const COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

/**
 * 400 for a parameter a conversion cannot honour (OpenAI's own answer to an unsupported
 * parameter: `invalid_request_error` with `param`). A same-format upstream gets it as written.
 */
function cannotHonour(param: string, why: string): GatewayError {
  return new GatewayError(
    'bad_request',
    `Unsupported parameter: '${param}' ${why}. This model is served over a Chat Completions upstream; a provider configured with formats: ['completions'] takes it as written.`,
    { details: { param } },
  );
}

/** `prompt` as one text: a string, or an array of one string. Token arrays and several prompts are refused. */
function promptText(prompt: unknown, check: FieldChecker): string {
  if (typeof prompt === 'string') return prompt;
  if (!Array.isArray(prompt)) {
    check.fail('prompt', 'must be a string, an array of strings, an array of tokens or an array of token arrays');
    return '';
  }
  if (prompt.length === 0) {
    check.fail('prompt', 'must not be empty');
    return '';
  }
  if (prompt.every((item) => typeof item === 'string')) {
    if (prompt.length === 1) return prompt[0] as string;
    throw cannotHonour('prompt', `with ${prompt.length} prompts is not supported: send one prompt per request`);
  }
  if (prompt.every((item) => typeof item === 'number' || (Array.isArray(item) && item.every((token) => typeof token === 'number')))) {
    throw cannotHonour('prompt', 'as token ids is not supported: send the prompt as text');
  }
  check.fail('prompt', 'must be a string, an array of strings, an array of tokens or an array of token arrays');
  return '';
}

/**
 * A legacy Completions body → IR: the prompt is one user turn. What the IR cannot carry is a 400
 * naming it (`suffix`, `logprobs`, `best_of` and `n` above 1, `logit_bias`, several prompts,
 * token prompts); `echo` is honoured by the encoders (the prompt before the completion).
 */
export function decodeCompletionsRequest(raw: unknown): ChatRequest {
  const body = requireFields(raw, { model: MODEL_FIELD, prompt: { check: () => true, message: '' } }) as Record<string, unknown> & { model: string };
  const check = new FieldChecker();
  const text = promptText(body.prompt, check);
  const request: ChatRequest = {
    model: body.model,
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    stream: check.boolean(body.stream, 'stream') ?? false,
    maxTokens: check.number(body.max_tokens, 'max_tokens', { min: 0, integer: true }) ?? COMPLETIONS_DEFAULT_MAX_TOKENS,
  };
  const streamOptions = check.record(body.stream_options, 'stream_options');
  if (streamOptions?.include_usage === true) request.includeUsage = true;
  set(request, 'temperature', check.number(body.temperature, 'temperature', { min: 0, max: 2 }));
  set(request, 'topP', check.number(body.top_p, 'top_p', { min: 0, max: 1 }));
  set(request, 'stop', check.stringList(body.stop, 'stop'));
  set(request, 'seed', check.number(body.seed, 'seed', { integer: true }));
  set(request, 'presencePenalty', check.number(body.presence_penalty, 'presence_penalty', { min: -2, max: 2 }));
  set(request, 'frequencyPenalty', check.number(body.frequency_penalty, 'frequency_penalty', { min: -2, max: 2 }));
  set(request, 'user', check.string(body.user, 'user'));
  const n = check.number(body.n, 'n', { min: 1, integer: true });
  const bestOf = check.number(body.best_of, 'best_of', { min: 0, integer: true });
  const suffix = check.string(body.suffix, 'suffix');
  const logprobs = check.number(body.logprobs, 'logprobs', { min: 0, max: 5, integer: true });
  const logitBias = check.record(body.logit_bias, 'logit_bias');
  check.boolean(body.echo, 'echo');
  check.throwIfAny();
  if (suffix) throw cannotHonour('suffix', 'is not supported (no insertion over Chat)');
  if (logprobs !== undefined) throw cannotHonour('logprobs', 'is not supported (no token log probabilities over this route)');
  if (bestOf !== undefined && bestOf > 1) throw cannotHonour('best_of', 'above 1 is not supported');
  if (n !== undefined && n > 1) throw cannotHonour('n', 'above 1 is not supported');
  if (logitBias && Object.keys(logitBias).length > 0) throw cannotHonour('logit_bias', 'is not supported (token ids differ between models)');
  set(request, 'extra', collectExtra(body, MAPPED));
  return request;
}

/** True when the client asked for its prompt back before the completion (`echo: true`, kept in `extra`). */
export function echoesPrompt(request: ChatRequest): boolean {
  return isRecord(request.extra) && request.extra.echo === true;
}

/** The prompt text of a decoded request (its user turns' text), for `echo`. */
export function promptOf(request: ChatRequest): string {
  return request.messages
    .filter((message) => message.role === 'user')
    .flatMap((message) => message.content.map((part) => (part.type === 'text' ? part.text : '')))
    .join('');
}
