import type { ChatRequest, TextPart, WireFormat } from '../ir/index.ts';
import { getFormat, isOpenAIChatModelWithoutReasoning } from '../formats/index.ts';
import { baseModelOf, hasKnownCapabilities } from '../providers/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { validationError } from '../errors/index.ts';
import { MAX_EMULATED_STOP_CHARS, MAX_EMULATED_STOPS, stopsToEmulate } from './emulate-stop.ts';

/** A converted request fitted to its target model, and what was changed (for `X-Gateway-Adapted` and the request log). */
export interface FittedRequest {
  request: ChatRequest;
  adapted: string[];
  /** Stop sequences the upstream could not take: the gateway cuts the answer at them (emulate-stop.ts). */
  stop?: string[];
}

/**
 * The sampling parameters OpenAI's reasoning models refuse, and their stop sequences and token log
 * probabilities ("Unsupported parameter: 'stop' is not supported with this model."), with their wire
 * names (for `X-Gateway-Adapted`).
 */
const SAMPLING = [
  ['temperature', 'temperature'],
  ['topP', 'top_p'],
  ['presencePenalty', 'presence_penalty'],
  ['frequencyPenalty', 'frequency_penalty'],
  ['stop', 'stop'],
  ['logprobs', 'logprobs'],
  ['topLogprobs', 'top_logprobs'],
] as const;

/** What a Messages upstream is told when the client asked for `json_object` (Anthropic has no JSON mode). */
export const JSON_OBJECT_INSTRUCTION = 'Respond with a single valid JSON object and nothing else: no prose, no code fences.';

/**
 * Fits a converted request to what the target model takes, from the catalog: the output cap
 * clamped to the model's maximum, reasoning removed for a model known not to reason (the catalog's
 * word, else OpenAI's gpt-5-chat by its id), and what
 * the target format's face says it lacks (`fit`): the `max` effort mapped to `high`, sampling
 * parameters left out for a model that refuses them,
 * `json_object` enforced by an instruction where it has no JSON mode. A same-format passthrough
 * is never fitted (the client wrote it for that API). Unknown facts (no catalog entry) change nothing.
 */
export function fitToModel(input: ChatRequest, model: CatalogModel, target: WireFormat): FittedRequest {
  const adapted: string[] = [];
  const fit = getFormat(target).fit ?? {};
  let request = input;
  const edit = (): ChatRequest => (request === input ? (request = { ...input }) : request);
  const cap = model.spec.maxOutputTokens;
  if (cap !== undefined && request.maxTokens !== undefined && request.maxTokens > cap) {
    edit().maxTokens = cap;
    adapted.push(`max_tokens=${cap}`);
  }
  if (request.reasoning && knownNotToReason(model)) {
    delete edit().reasoning;
    adapted.push('reasoning=removed');
  } else if (request.reasoning?.effort === 'max' && !fit.maxEffort) {
    // `max` is Anthropic's; OpenAI's highest is `xhigh`, which not every model takes: `high` is safe.
    edit().reasoning = { ...request.reasoning, effort: 'high' };
    adapted.push('reasoning.effort=high');
  }
  let stop: string[] | undefined;
  if (fit.noSampling?.(baseModelOf(model)) && !knownNotToReason(model)) {
    for (const [field, name] of SAMPLING) {
      const value = request[field];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      delete edit()[field];
      if (field === 'stop') stop = stopsToEmulate(input.stop);
      adapted.push(field === 'stop' && stop ? 'stop=emulated' : `${name}=removed`);
    }
  }
  if (fit.noLogprobs && request.logprobs) {
    const fitted = edit();
    delete fitted.logprobs;
    delete fitted.topLogprobs;
    adapted.push('logprobs=removed');
  }
  if (fit.noStop && request.stop?.length) {
    delete edit().stop;
    stop = stopsToEmulate(input.stop);
    adapted.push(stop ? 'stop=emulated' : 'stop=removed');
  }
  if (stop && stop.length > MAX_EMULATED_STOPS) {
    throw validationError({ stop: `at most ${MAX_EMULATED_STOPS} on this model: its upstream takes none and the gateway applies them itself (got ${stop.length})` });
  }
  const long = stop ? (input.stop ?? []).findIndex((sequence) => sequence.length > MAX_EMULATED_STOP_CHARS) : -1;
  if (long !== -1) {
    throw validationError({ [`stop[${long}]`]: `may be at most ${MAX_EMULATED_STOP_CHARS} characters on this model: its upstream takes no stop sequences and the gateway applies them itself` });
  }
  if (request.responseFormat?.type === 'json_object' && fit.noJsonMode) {
    const fitted = edit();
    delete fitted.responseFormat;
    fitted.system = [...request.system, jsonInstruction()];
    adapted.push('response_format=instruction');
  }
  return stop ? { request, adapted, stop } : { request, adapted };
}

/**
 * What the catalog, the plugin or the config says; for an id nobody described, only OpenAI's
 * gpt-5-chat (which refuses reasoning_effort): any other such id keeps its reasoning.
 */
export function knownNotToReason(model: CatalogModel): boolean {
  if (hasKnownCapabilities(model.spec)) return !model.spec.capabilities?.includes('thinking');
  return isOpenAIChatModelWithoutReasoning(baseModelOf(model));
}

function jsonInstruction(): TextPart {
  return { type: 'text', text: JSON_OBJECT_INSTRUCTION };
}
