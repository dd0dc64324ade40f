import { findFormat } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';
import type { CatalogModel } from '../providers/index.ts';

/** A format whose output cap bounds reasoning too (FormatDefinition.capBoundsReasoning); an unknown one is taken not to. */
function boundsReasoning(format: WireFormat | undefined): boolean {
  return format !== undefined && findFormat(format)?.capBoundsReasoning === true;
}

/**
 * Whether one of `models` may answer a request of `format` that asks for thinking over its cap
 * with more than the cap (the credit hold then holds the budget on top: RequestFacts.thinkingOnTop).
 * A model is sent the request in `format` when it speaks it, else in its first format (prepareCall;
 * a Responses passthrough retried converted goes there too), so both must bound reasoning. No
 * model known: it may.
 */
export function mayThinkPastCap(models: readonly CatalogModel[], format: WireFormat): boolean {
  if (models.length === 0) return true;
  return models.some((model) => !boundsReasoning(model.formats[0]) || (model.formats.includes(format) && !boundsReasoning(format)));
}
