import type { ChatCall } from 'gateway/plugin-kit';

/** The members of a GenerateContentRequest that Vertex's countTokens takes beside `contents`. */
const VERTEX_COUNTED = ['contents', 'systemInstruction', 'tools', 'generationConfig'];

/**
 * The countTokens body for a Gemini request body. AI Studio counts `{contents}` or a whole
 * `{generateContentRequest}` (the model named inside); Vertex takes the request's members at
 * the top level. A body that already is a countTokens body is sent as it is.
 */
export function countTokensBody(call: ChatCall, api: 'gemini' | 'vertex'): Record<string, unknown> {
  const body = call.body;
  const inner = body.generateContentRequest as Record<string, unknown> | undefined;
  if (api === 'gemini') {
    if (inner !== undefined || Object.keys(body).every((key) => key === 'contents')) return body;
    return { generateContentRequest: { ...body, model: `models/${call.model}` } };
  }
  const source = inner ?? body;
  const out: Record<string, unknown> = {};
  for (const key of VERTEX_COUNTED) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
