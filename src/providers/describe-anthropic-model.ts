import { validationError } from '../errors/index.ts';
import type { CatalogModel } from './types.ts';

/** 2025-01-01, the stable creation time of configured models (as `created` in the OpenAI shape). */
const CREATED_AT = '2025-01-01T00:00:00Z';
const MAX_LIMIT = 1_000;
const DEFAULT_LIMIT = 20;

/** Anthropic's `ModelInfo` of a served model (`type: "model"`, `display_name`, RFC 3339 `created_at`). */
export function toAnthropicModelObject(model: CatalogModel): Record<string, unknown> {
  const spec = model.spec;
  return {
    type: 'model',
    id: model.id,
    display_name: spec.displayName ?? spec.id,
    created_at: CREATED_AT,
    max_input_tokens: spec.contextWindow ?? null,
    max_tokens: spec.maxOutputTokens ?? null,
  };
}

/** `limit` of a page: a whole number from 1 to 1000 (default 20); another is refused, as Anthropic's API refuses it. */
function pageLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw validationError({ limit: `must be a whole number from 1 to ${MAX_LIMIT}` });
  return limit;
}

/** An Anthropic list's page query, for a list paged where it is kept: `limit` (as `anthropicListPage` reads it), `after_id`, `before_id`. */
export function anthropicPageQuery(query: URLSearchParams): { limit: number; after?: string; before?: string } {
  const after = query.get('after_id');
  const before = query.get('before_id');
  return { limit: pageLimit(query), ...(after !== null ? { after } : {}), ...(before !== null ? { before } : {}) };
}

/**
 * One page of an Anthropic list (`GET /v1/models`, `/v1/messages/batches`), newest or first
 * first as `items` are: `limit` (1–1000, default 20; another is a 422 naming `limit`),
 * `after_id` (the page after it), `before_id` (the page before it).
 */
export function anthropicListPage<T extends { id: string }>(items: readonly T[], query: URLSearchParams): { page: T[]; hasMore: boolean } {
  const limit = pageLimit(query);
  const ids = items.map((item) => item.id);
  const after = query.get('after_id');
  const before = query.get('before_id');
  let start = 0;
  let end = items.length;
  if (after !== null) start = ids.indexOf(after) + 1;
  if (before !== null && ids.includes(before)) end = ids.indexOf(before);
  const backwards = before !== null && after === null;
  const page = backwards ? items.slice(Math.max(start, end - limit), end) : items.slice(start, Math.min(end, start + limit));
  return { page, hasMore: backwards ? end - limit > start : start + limit < end };
}

/** One page of Anthropic's `GET /v1/models` (`{data, has_more, first_id, last_id}`). */
export function anthropicModelPage(models: readonly CatalogModel[], query: URLSearchParams): Record<string, unknown> {
  const { page, hasMore } = anthropicListPage(models, query);
  return { data: page.map(toAnthropicModelObject), has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null };
}
