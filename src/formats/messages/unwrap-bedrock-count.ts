import { badRequest, isRecord } from '../shared/index.ts';

/**
 * Bedrock's CountTokens body → the InvokeModel body it wraps (`{input: {invokeModel: {body}}}`,
 * the body base64 as AWS's JSON protocol writes a blob), as the Messages count reads it. The
 * `converse` input (a Converse body) is not counted here: 400.
 */
export function unwrapBedrockCount(body: Record<string, unknown>): Record<string, unknown> {
  const input = body.input;
  if (!isRecord(input)) throw badRequest('input: required, an object with invokeModel');
  if (input.invokeModel === undefined && input.converse !== undefined) throw badRequest('input.converse: not counted on an InvokeModel route; send input.invokeModel with the InvokeModel body');
  const invoke = input.invokeModel;
  if (!isRecord(invoke) || typeof invoke.body !== 'string') throw badRequest('input.invokeModel.body: required, the InvokeModel body in base64');
  let inner: unknown;
  try {
    inner = JSON.parse(Buffer.from(invoke.body, 'base64').toString('utf8'));
  } catch {
    inner = undefined;
  }
  if (!isRecord(inner)) throw badRequest('input.invokeModel.body: must be a JSON object in base64');
  return inner;
}
