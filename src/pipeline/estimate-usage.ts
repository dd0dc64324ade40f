import type { Usage } from '../ir/index.ts';

export { estimateInputTokens, estimateTokens } from '../formats/index.ts';

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}
