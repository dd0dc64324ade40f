import type { CatalogModel } from './types.ts';

const CREATED = 1_735_689_600; // 2025-01-01: a stable `created` for configured models

/** The OpenAI model object plus the gateway's type, capabilities, formats and pricing. */
export function toModelObject(model: CatalogModel): Record<string, unknown> {
  const spec = model.spec;
  return {
    id: model.id,
    object: 'model',
    created: CREATED,
    owned_by: model.provider.id,
    type: spec.type ?? 'chat',
    capabilities: spec.capabilities ?? [],
    formats: model.formats,
    provider: model.provider.id,
    display_name: spec.displayName ?? spec.id,
    context_window: spec.contextWindow ?? null,
    max_output_tokens: spec.maxOutputTokens ?? null,
    pricing: spec.pricing ?? null,
  };
}
