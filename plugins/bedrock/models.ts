// What a Bedrock model id says about itself: Anthropic's Claude goes through InvokeModel in the
// Messages format, every other model through Converse. Cross-region inference profiles
// (`us.`, `eu.`, `apac.`, `global.`, …) name the same model with a routing prefix.
import type { ModelCapability, ModelSpec } from 'gateway/plugin-kit';

const PROFILE_PREFIX = /^(us|eu|apac|jp|au|ca|us-gov|global)\./;

/** The base model id of an inference-profile id (`us.anthropic.claude-…` → `anthropic.claude-…`). */
export function baseModelId(id: string): string {
  return id.replace(PROFILE_PREFIX, '');
}

export function isClaude(id: string): boolean {
  return baseModelId(id).startsWith('anthropic.claude');
}

const CLAUDE_CAPS: ModelCapability[] = ['streaming', 'function_calling', 'thinking', 'vision', 'documents'];

/** Facts from an id's shape: the format its upstream call takes and, for Claude, what it can do. */
export function describeBedrockModel(id: string): Partial<ModelSpec> {
  if (isClaude(id)) return { formats: ['messages'], capabilities: CLAUDE_CAPS };
  return { formats: ['bedrock-converse'] };
}

/** Served when the config lists no models; prices come from the bundled catalog (genai-prices' `aws`). */
export const DEFAULT_MODELS: ModelSpec[] = [
  { id: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', type: 'chat', capabilities: CLAUDE_CAPS, maxOutputTokens: 64_000 },
  { id: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', type: 'chat', capabilities: CLAUDE_CAPS, maxOutputTokens: 64_000 },
  { id: 'amazon.nova-pro-v1:0', type: 'chat', capabilities: ['streaming', 'function_calling', 'vision', 'documents'] },
  { id: 'amazon.nova-lite-v1:0', type: 'chat', capabilities: ['streaming', 'function_calling', 'vision', 'documents'] },
  { id: 'meta.llama3-3-70b-instruct-v1:0', type: 'chat', capabilities: ['streaming', 'function_calling'] },
  { id: 'mistral.mistral-large-2402-v1:0', type: 'chat', capabilities: ['streaming', 'function_calling'] },
  { id: 'deepseek.r1-v1:0', type: 'chat', capabilities: ['streaming', 'thinking'] },
];
