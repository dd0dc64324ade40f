import type { ReasoningPart } from '../../ir/index.ts';
import { readCarried, restoreReasoning } from '../shared/index.ts';

/** The fields of a reasoning item (input or output) this codec reads. */
export interface ReasoningItemFields {
  id?: string | null;
  summary?: ReadonlyArray<{ text?: unknown }> | null;
  content?: ReadonlyArray<{ text?: unknown }> | null;
  encrypted_content?: string | null;
}

function texts(parts: ReadonlyArray<{ text?: unknown }> | null | undefined): string[] {
  return (parts ?? []).flatMap((part) => (typeof part.text === 'string' ? [part.text] : []));
}

/** One reasoning item → one IR reasoning part; what the gateway carried in encrypted_content (shared/carry-opaque.ts) comes back as it was. */
export function reasoningPartFromItem(item: ReasoningItemFields): ReasoningPart {
  const summary = texts(item.summary);
  const text = (summary.length > 0 ? summary : texts(item.content)).join('\n\n');
  const part: ReasoningPart = { type: 'reasoning', text };
  if (item.id) part.itemId = item.id;
  if (item.encrypted_content) {
    const carried = readCarried(item.encrypted_content);
    if (carried === undefined) part.encrypted = item.encrypted_content;
    else restoreReasoning(part, carried);
  }
  return part;
}
