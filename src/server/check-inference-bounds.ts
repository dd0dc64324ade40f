import { FieldChecker, isRecord } from '../formats/index.ts';

/**
 * Per-field bounds of the inference bodies (docs/limits.md), on top of the body limit and the
 * JSON depth. Metadata follows OpenAI's documented limits; ids and names are far longer than
 * any real one.
 */
export const INFERENCE_LIMITS = {
  modelChars: 256,
  userChars: 256,
  idChars: 256,
  metadataPairs: 16,
  metadataKeyChars: 64,
  metadataValueChars: 512,
} as const;

const L = INFERENCE_LIMITS;

function checkMetadata(check: FieldChecker, metadata: Record<string, unknown>): void {
  const keys = Object.keys(metadata);
  if (keys.length > L.metadataPairs) check.fail('metadata', `must have at most ${L.metadataPairs} keys`);
  for (const key of keys) {
    if (key.length > L.metadataKeyChars) check.fail(`metadata.${key.slice(0, L.metadataKeyChars)}…`, `keys must be at most ${L.metadataKeyChars} characters`);
    else check.maxLength(metadata[key], `metadata.${key}`, L.metadataValueChars);
  }
}

/** 422 naming every inference field over its bound (any of the three formats); cheap when none is. */
export function checkInferenceBounds(body: Record<string, unknown>): void {
  const { model, user, previous_response_id: previous, metadata } = body;
  if (
    !(typeof model === 'string' && model.length > L.modelChars) &&
    !(typeof user === 'string' && user.length > L.userChars) &&
    !(typeof previous === 'string' && previous.length > L.idChars) &&
    metadata === undefined
  ) {
    return;
  }
  const check = new FieldChecker();
  check.maxLength(model, 'model', L.modelChars);
  check.maxLength(user, 'user', L.userChars);
  check.maxLength(previous, 'previous_response_id', L.idChars);
  if (isRecord(metadata)) checkMetadata(check, metadata);
  check.throwIfAny();
}
