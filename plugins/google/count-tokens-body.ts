import type { ChatCall } from 'gateway/plugin-kit';

/**
 * The members of a GenerateContentRequest that Vertex's countTokens takes beside `contents`, by
 * their lowerCamelCase and snake_case names (proto JSON takes both; the client's is sent).
 */
const VERTEX_COUNTED: ReadonlyArray<readonly [string, string]> = [
  ['contents', 'contents'],
  ['systemInstruction', 'system_instruction'],
  ['tools', 'tools'],
  ['generationConfig', 'generation_config'],
];

/**
 * The countTokens body for a Gemini request body. AI Studio counts `{contents}` or a whole
 * `{generateContentRequest}` (the model named inside); Vertex takes the request's members at
 * the top level. A body that already is a countTokens body is sent as it is; its wrapper may be
 * spelled `generate_content_request`, as Google's REST examples write it.
 */
export function countTokensBody(call: ChatCall, api: 'gemini' | 'vertex'): Record<string, unknown> {
  const body = call.body;
  const inner = (body.generateContentRequest ?? body.generate_content_request) as Record<string, unknown> | undefined;
  if (api === 'gemini') {
    if (inner !== undefined || Object.keys(body).every((key) => key === 'contents')) return body;
    return { generateContentRequest: { ...body, model: `models/${call.model}` } };
  }
  const source = inner ?? body;
  const out: Record<string, unknown> = {};
  for (const [camel, snake] of VERTEX_COUNTED) {
    const key = source[camel] !== undefined ? camel : snake;
    if (source[key] !== undefined) out[key] = source[key];
  }
  return out;
}
