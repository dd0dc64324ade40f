/**
 * OpenAI's `POST /v1/responses/compact` where the serving upstream has none (Chat, Messages,
 * Gemini, a Responses upstream without the route): the routed model writes a handoff summary of
 * the conversation, and the answer has OpenAI's shape — the input's user messages, then one
 * `compaction` item whose `encrypted_content` carries the summary (`gwcmp:` + base64url(JSON
 * `{summary}`)), opaque to the client as OpenAI's is. Sent back in a later `input`, that item is
 * read as a user message holding the summary (decode-input.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ChatRequest } from '../../ir/index.ts';

const COMPACTION_PREFIX = 'gwcmp:';

/** What the model is asked once the history is in front of it. */
const COMPACTION_PROMPT = [
  'Context compaction: the conversation above is about to be replaced by your summary, and the work continues from it alone.',
  'Write a handoff summary for whoever continues: the task and the user\'s requests and constraints, what was done and decided',
  '(files, commands, results, errors), the current state, and what remains to do next. Be concise and specific; keep names,',
  'paths and values exact. Answer with the summary only; do not call tools.',
].join(' ');

/** How a gateway compaction item reads to the model that continues. */
const SUMMARY_HEADER = 'Summary of the earlier conversation, written when its context was compacted:\n\n';

/** True when a Responses body's `input` holds a `compaction_trigger` item (Codex's remote compaction v2): it asks for a compaction. */
export function hasCompactionTrigger(body: Record<string, unknown>): boolean {
  const input = body.input;
  return Array.isArray(input) && input.some((item) => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'compaction_trigger');
}

/** The summary request for a compaction: the history, then the prompt as the last user turn; no tool may be called. */
export function compactionRequest(request: ChatRequest): ChatRequest {
  const out: ChatRequest = { ...request, messages: [...request.messages, { role: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] }] };
  delete out.compaction;
  // Tools stay declared (Anthropic wants the tools of a history's tool calls), none may run.
  if (out.tools?.length) out.toolChoice = 'none';
  else delete out.toolChoice;
  delete out.webSearch;
  delete out.responseFormat;
  return out;
}

/** The `encrypted_content` of a compaction item the gateway wrote. */
function encodeSummary(summary: string): string {
  return COMPACTION_PREFIX + Buffer.from(JSON.stringify({ summary }), 'utf8').toString('base64url');
}

/** The `compaction` output item carrying a summary the model wrote. */
export function compactionItem(summary: string): Record<string, unknown> {
  return { id: `cmp_gw${randomBytes(12).toString('hex')}`, type: 'compaction', encrypted_content: encodeSummary(summary) };
}

/** The summary a gateway compaction item carries; undefined for anyone else's (OpenAI's is readable only by OpenAI). */
export function readCompactionSummary(encrypted: string): string | undefined {
  if (!encrypted.startsWith(COMPACTION_PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(encrypted.slice(COMPACTION_PREFIX.length), 'base64url').toString('utf8')) as { summary?: unknown };
    return typeof parsed.summary === 'string' ? parsed.summary : undefined;
  } catch {
    return undefined;
  }
}

/** The text the continuing model reads for a gateway compaction item. */
export function compactionSummaryText(summary: string): string {
  return SUMMARY_HEADER + summary;
}

type Json = Record<string, unknown>;

/** The user messages of a compact request's `input`, as OpenAI lists them in the compacted output. */
function userMessages(input: unknown): Json[] {
  const items: unknown[] = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  const out: Json[] = [];
  for (const raw of items) {
    if (typeof raw !== 'object' || raw === null) continue;
    const item = raw as Json;
    if (item.role !== 'user' || (item.type !== undefined && item.type !== 'message')) continue;
    const content = typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content;
    out.push({ id: `msg_gw${randomBytes(12).toString('hex')}`, type: 'message', status: 'completed', role: 'user', content });
  }
  return out;
}

/**
 * The compacted response (`object: "response.compaction"`) made from the Responses answer to
 * the summary request and the client's compact body; undefined when the answer holds no text.
 */
export function compactedResponse(answer: Json, clientBody: Json): Json | undefined {
  const output = Array.isArray(answer.output) ? (answer.output as Json[]) : [];
  const summary = output
    .filter((item) => item.type === 'message')
    .flatMap((item) => (Array.isArray(item.content) ? (item.content as Json[]) : []))
    .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('')
    .trim();
  if (summary === '') return undefined;
  return {
    id: answer.id,
    object: 'response.compaction',
    created_at: answer.created_at,
    output: [...userMessages(clientBody.input), compactionItem(summary)],
    usage: answer.usage,
  };
}
