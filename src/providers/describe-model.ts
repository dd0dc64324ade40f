import { toArchitecture, toOptionFields, toPricingObject } from './model-object-fields.ts';
import type { CatalogModel } from './types.ts';

const CREATED = 1_735_689_600; // 2025-01-01: a stable `created` for configured models

/**
 * The wire formats a model is reached through: its provider's (or its entry's) for a chat model; none for a
 * media model, which the chat-like routes refuse as not a chat model (its own routes are the media ones).
 */
function formatsOf(model: CatalogModel): CatalogModel['formats'] {
  return (model.spec.type ?? 'chat') === 'chat' ? model.formats : [];
}

/**
 * The OpenAI model object plus the gateway's type, capabilities and formats, OpenRouter's
 * `name`, `context_length`, `architecture` and `pricing`, and the model's declared options.
 */
export function toModelObject(model: CatalogModel): Record<string, unknown> {
  const spec = model.spec;
  return {
    id: model.id,
    object: 'model',
    created: CREATED,
    owned_by: model.provider.id,
    name: spec.displayName ?? spec.id,
    type: spec.type ?? 'chat',
    capabilities: spec.capabilities ?? [],
    formats: formatsOf(model),
    provider: model.provider.id,
    display_name: spec.displayName ?? spec.id,
    context_length: spec.contextWindow ?? null,
    context_window: spec.contextWindow ?? null,
    max_output_tokens: spec.maxOutputTokens ?? null,
    architecture: toArchitecture(spec),
    pricing: toPricingObject(spec.pricing),
    ...toOptionFields(spec),
  };
}
