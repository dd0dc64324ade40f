import type { Command } from 'commander';
import type { AdminMediaView } from '../../admin/index.ts';
import type { MediaStatus, MediaType } from '../../store/index.ts';
import { createClock, terminalText } from '../../util/index.ts';
import { withAdmin } from '../admin-client.ts';
import { missingDataDirNote, resolveContext } from '../context.ts';
import { formatFields, formatTable, print, printJson, printTable } from '../format-table.ts';

export interface MediaListOptions {
  type?: MediaType;
  status?: MediaStatus;
  account?: string;
  page?: number;
  pageSize?: number;
  json?: boolean;
}

/** `3s`, `5m`, `2h`, `4d`: how long ago, at a glance. */
export function formatAge(createdAt: number, nowMs: number): string {
  const seconds = Math.max(0, Math.floor(nowMs / 1000) - createdAt);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** The prompt on one line, cut to `width` characters (code points, never half of one) with an ellipsis. */
export function excerpt(prompt: string | null, width = 40): string {
  if (prompt === null) return '-';
  const chars = Array.from(terminalText(prompt).replace(/\s+/g, ' ').trim());
  return chars.length <= width ? chars.join('') : `${chars.slice(0, width - 1).join('')}…`;
}

const MEDIA_HEADERS = ['ID', 'TYPE', 'STATUS', 'MODEL', 'PROMPT', 'AGE', 'ACCOUNT'];

function mediaRows(records: AdminMediaView[], nowMs: number): string[][] {
  return records.map((r) => [r.id, r.media_type, r.status, r.model, excerpt(r.prompt), formatAge(r.created_at, nowMs), r.account]);
}

/** The table `gateway media ls` prints (whole: through a pipe, or on a terminal wide enough). */
export function formatMediaTable(records: AdminMediaView[], nowMs: number): string {
  return formatTable(MEDIA_HEADERS, mediaRows(records, nowMs));
}

/** `gateway media ls`: one page of the Media Library across accounts (or one with --account). */
export async function listMediaCommand(cmd: Command, opts: MediaListOptions): Promise<void> {
  const ctx = await resolveContext(cmd);
  const page = await withAdmin(
    ctx,
    (admin) => admin.media.list.query({ type: opts.type, status: opts.status, account: opts.account, page: opts.page ?? 1, pageSize: opts.pageSize ?? 20 }),
    { readOnly: true },
  );
  if (opts.json) return printJson(page);
  if (page.data.length === 0) {
    print(page.total === 0 ? `No media generations${missingDataDirNote(ctx)}.` : `No media generations on page ${page.page} (${page.total} in all).`);
    return;
  }
  // On a terminal: the prompt, model and account cut, then the account and age left out; the id stays whole.
  printTable(MEDIA_HEADERS, mediaRows(page.data, createClock().now()), { shrink: ['PROMPT', 'MODEL', 'ACCOUNT'], drop: ['ACCOUNT', 'AGE'] });
  const first = (page.page - 1) * page.page_size + 1;
  const more = page.has_more ? ` (next: --page ${page.page + 1})` : '';
  print(`\n${first}-${first + page.data.length - 1} of ${page.total}${more}`);
}

/** `gateway media show <id>`: every field of one record. */
export async function showMediaCommand(cmd: Command, id: string, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const record = await withAdmin(ctx, (admin) => admin.media.get.query({ id }), { readOnly: true });
  if (opts.json) return printJson(record);
  print(formatFields(record));
}

/** `gateway media rm <id>`: deletes the library record (not the media file). */
export async function removeMediaCommand(cmd: Command, id: string, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const result = await withAdmin(ctx, (admin) => admin.media.remove.mutate({ id }), { existing: true });
  if (opts.json) return printJson(result);
  print(`Deleted media generation ${result.id}.`);
}
