import type { PassthroughRules, RewriteContext, WireRecord } from '../formats/index.ts';
import { containsSecret, hasSecrets, redactSecrets } from '../util/index.ts';
import { quotedFinder } from '../util/index.ts';

const findError = quotedFinder('"error"');

/** The record with any configured upstream key redacted, or undefined when it holds none. Only an error record (every format's has an `"error"` key) may quote the key back. */
function redactedRecord(record: WireRecord): WireRecord | undefined {
  const data = record.data;
  if (findError(data) === -1 || !containsSecret(data)) return undefined;
  return record.event === undefined ? { data: redactSecrets(data) } : { event: record.event, data: redactSecrets(data) };
}

/**
 * The records a passthrough sends on, or undefined when they go as they came (the bytes pass
 * through untouched): an error record quoting a configured upstream key is redacted, and the
 * format's own rewrites apply (Chat drops the usage chunk the client did not ask for;
 * Responses names the gateway's response id for a stored answer).
 */
export function rewritePassedRecords(records: WireRecord[], rules: PassthroughRules, context: RewriteContext): WireRecord[] | undefined {
  const rewrite = rules.rewrite;
  const redact = hasSecrets();
  if (!rewrite && !redact) return undefined;
  let out: WireRecord[] | undefined;
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i];
    const rewritten = rewrite?.(record, context);
    if (rewritten === null) {
      out ??= records.slice(0, i);
      continue;
    }
    const clean = (redact ? redactedRecord(rewritten ?? record) : undefined) ?? rewritten;
    if (clean) out ??= records.slice(0, i);
    out?.push(clean ?? record);
  }
  return out;
}
