import type { Command } from 'commander';
import type { AdminVideoView } from '../../admin/index.ts';
import { createClock } from '../../util/index.ts';
import { withAdmin } from '../admin-client.ts';
import { missingDataDirNote, resolveContext } from '../context.ts';
import { formatFields, formatTable, print, printJson } from '../format-table.ts';
import { excerpt, formatAge } from './media.ts';

const ENDED = new Set(['completed', 'failed', 'cancelled', 'expired']);

/** The table `gateway videos ls` prints. */
export function formatVideosTable(videos: AdminVideoView[], nowMs: number): string {
  return formatTable(
    ['ID', 'STATUS', 'PROGRESS', 'MODEL', 'SECONDS', 'PROMPT', 'AGE', 'ACCOUNT'],
    videos.map((v) => [v.id, v.status, `${v.progress}%`, v.model, v.seconds, excerpt(v.prompt, 30), formatAge(v.created_at, nowMs), v.account]),
  );
}

/** One line of `videos show --watch`: status, a progress bar, the cost once billed. */
export function progressLine(v: AdminVideoView): string {
  const filled = Math.round(v.progress / 5);
  const cost = v.usage ? `  ${v.usage.cost} credits` : '';
  const error = v.error ? `  ${v.error.code}: ${v.error.message}` : '';
  return `${v.id}  ${v.status.padEnd(11)} [${'#'.repeat(filled)}${'.'.repeat(20 - filled)}] ${String(v.progress).padStart(3)}%${cost}${error}`;
}

export async function listVideosCommand(cmd: Command, opts: { account?: string; status?: AdminVideoView['status']; limit?: number; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const page = await withAdmin(ctx, (admin) => admin.videos.list.query({ account: opts.account, status: opts.status, limit: opts.limit ?? 20 }), { readOnly: true });
  if (opts.json) return printJson(page);
  if (page.data.length === 0) return print(`No video jobs${missingDataDirNote(ctx)}.`);
  print(formatVideosTable(page.data, createClock().now()));
  print(`\n${page.data.length} of ${page.total}`);
}

export async function showVideoCommand(cmd: Command, id: string, opts: { watch?: boolean; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  for (;;) {
    const video = await withAdmin(ctx, (admin) => admin.videos.get.query({ id }), { readOnly: true });
    if (!opts.watch) {
      if (opts.json) return printJson(video);
      print(formatFields(video));
      return;
    }
    const line = opts.json ? JSON.stringify({ id: video.id, status: video.status, progress: video.progress }) : progressLine(video);
    if (process.stdout.isTTY && !opts.json) process.stdout.write(`\r${line}\x1b[K`);
    else print(line);
    if (ENDED.has(video.status)) {
      if (process.stdout.isTTY && !opts.json) process.stdout.write('\n');
      return;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export async function cancelVideoCommand(cmd: Command, id: string, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const video = await withAdmin(ctx, (admin) => admin.videos.cancel.mutate({ id }), { existing: true });
  if (opts.json) return printJson(video);
  print(ENDED.has(video.status) ? `Video ${video.id} is ${video.status}.` : `Video ${video.id}: cancel requested (the gateway running it ends it cancelled).`);
}
