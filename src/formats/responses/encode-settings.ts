import type { ReasoningConfig, ResponseFormat, ToolChoice, ToolDefinition } from '../../ir/index.ts';
import { budgetTokensToEffort, openAIEffortFor } from '../shared/index.ts';

/** IR tools → flat Responses function tools, followed by the hosted tools of a Responses client. */
export function encodeTools(tools: readonly ToolDefinition[] | undefined, hostedTools: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = (tools ?? []).map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? { type: 'object', properties: {} },
    // Responses treats a missing `strict` as true; tools from other formats were written non-strict.
    strict: tool.strict ?? false,
  }));
  if (Array.isArray(hostedTools)) {
    for (const tool of hostedTools) if (typeof tool === 'object' && tool !== null) out.push(tool as Record<string, unknown>);
  }
  return out;
}

/** IR tool choice → wire; a raw Responses value (allowed_tools, hosted) wins when present. */
export function encodeToolChoice(choice: ToolChoice | undefined, raw: unknown): unknown {
  if (typeof raw === 'object' && raw !== null) return raw;
  if (choice === undefined) return undefined;
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

/** IR response format → `text.format` (json_schema flat inside format). */
export function encodeTextFormat(format: ResponseFormat | undefined): Record<string, unknown> {
  if (format === undefined || format.type !== 'json_schema') return { type: format?.type ?? 'text' };
  const out: Record<string, unknown> = {
    type: 'json_schema',
    name: format.name ?? 'response',
    schema: format.schema ?? { type: 'object' },
  };
  if (format.description !== undefined) out.description = format.description;
  if (format.strict !== undefined) out.strict = format.strict;
  return out;
}

/**
 * IR reasoning → the `reasoning` request object, the effort fitted to the model (see
 * openAIEffortFor); undefined when there is nothing to ask.
 */
export function encodeReasoningRequest(reasoning: ReasoningConfig | undefined, model: string): Record<string, unknown> | undefined {
  if (!reasoning) return undefined;
  const asked = reasoning.effort ?? (reasoning.enabled && reasoning.budgetTokens !== undefined ? budgetTokensToEffort(reasoning.budgetTokens) : undefined);
  const effort = openAIEffortFor(model, reasoning, asked);
  const out: Record<string, unknown> = {};
  if (effort) out.effort = effort;
  if (reasoning.enabled && reasoning.summary) out.summary = reasoning.summary;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A converted body without the reasoning summary the upstream refused: OpenAI answers an
 * organization it has not verified 400 "Your organization must be verified to generate reasoning
 * summaries." (param `reasoning.summary`), which a Messages or Gemini client's thinking asks for.
 */
export function withoutRefusedSummary(body: Record<string, unknown>, param: string): { body: Record<string, unknown>; adapted: string } | undefined {
  const reasoning = body.reasoning;
  if (param !== 'reasoning.summary' || typeof reasoning !== 'object' || reasoning === null || !('summary' in reasoning)) return undefined;
  const { summary: _refused, ...rest } = reasoning as Record<string, unknown>;
  return { body: { ...body, reasoning: rest }, adapted: 'reasoning.summary=removed' };
}
