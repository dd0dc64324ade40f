import { mayThinkPastCap } from '../pipeline/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import type { AdmissionRequest } from './types.ts';

/**
 * The output cap held of a request asking for thinking over its cap (`thinkingOnTop`): the budget
 * stays on top while a model that may serve it may answer past the cap (Claude is asked for both);
 * OpenAI's caps bound reasoning too, so a request only they may serve is held its cap alone.
 */
export function heldOutputCap(request: Pick<AdmissionRequest, 'maxOutputTokens' | 'thinkingOnTop'>, mayServe: readonly CatalogModel[]): number | undefined {
  const { maxOutputTokens: cap, thinkingOnTop: thinking } = request;
  if (cap === undefined || thinking === undefined || mayThinkPastCap(mayServe, thinking.format)) return cap;
  return cap - thinking.tokens;
}
