import { badRequest, isRecord } from '../shared/index.ts';

/** The message of a CountTokens body that has no `input` object. */
const NO_INPUT = 'input: required, an object with invokeModel or converse';

/**
 * Bedrock's CountTokens body → the InvokeModel body it wraps (`{input: {invokeModel: {body}}}`,
 * the body base64 as AWS's JSON protocol writes a blob), as the Messages count reads it. The
 * `converse` input is read apart (readBedrockCountConverse).
 */
export function unwrapBedrockCount(body: Record<string, unknown>): Record<string, unknown> {
  const input = body.input;
  if (!isRecord(input)) throw badRequest(NO_INPUT);
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

/** The Converse body of a CountTokens body (`{input: {converse: {messages, system, …}}}`); undefined when it wraps an InvokeModel body. */
export function readBedrockCountConverse(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const input = body.input;
  if (!isRecord(input)) throw badRequest(NO_INPUT);
  if (input.invokeModel !== undefined || input.converse === undefined) return undefined;
  if (!isRecord(input.converse)) throw badRequest('input.converse: must be an object, the Converse body (messages, system, toolConfig, …)');
  return input.converse;
}
