import { type Command, InvalidArgumentError, Option } from 'commander';
import { listCommand } from './list-command.ts';
import { runAction } from './run-action.ts';

function intInRange(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}-${max}`;
      throw new InvalidArgumentError(`${name} must be an integer ${range}, got '${value}'`);
    }
    return n;
  };
}

/** `gateway media ls|show|rm`; the command module loads only when one of them runs. */
export function registerMediaCommands(program: Command): void {
  const media = program.command('media').description('the Media Library: generation records of every account');
  listCommand(media)
    .description('list media generations, newest first (expired records are not shown)')
    .addOption(new Option('--type <t>', 'media type').choices(['image', 'video', 'music', 'threed']))
    .addOption(new Option('--status <s>', 'status').choices(['pending', 'processing', 'completed', 'failed']))
    .option('--account <email>', 'only this account')
    .option('--page <n>', 'page number (from 1)', intInRange('--page', 1))
    .option('--page-size <n>', 'records per page (1-100, default 20)', intInRange('--page-size', 1, 100))
    .option('--json', 'print JSON (the list envelope, each record with its account)')
    .action(runAction(async (opts, cmd) => (await import('./commands/media.ts')).listMediaCommand(cmd, opts)));
  media
    .command('show <id>')
    .description('show one media generation')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/media.ts')).showMediaCommand(cmd, id, opts)));
  media
    .command('rm <id>')
    .description('delete a media generation record (the media file is not touched)')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/media.ts')).removeMediaCommand(cmd, id, opts)));
}

/** `gateway videos ls|show|cancel`: the video jobs the gateway runs; the module loads only when one runs. */
export function registerVideoCommands(program: Command): void {
  const videos = program.command('videos').description('video jobs the gateway runs (/v1/videos and Media Library video jobs) of every account');
  listCommand(videos)
    .description('list video jobs, newest first, with their status and progress')
    .option('--account <email>', 'only this account')
    .addOption(new Option('--status <s>', 'status').choices(['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'expired']))
    .option('--limit <n>', 'at most this many (1-1000, default 20)', intInRange('--limit', 1, 1000))
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/videos.ts')).listVideosCommand(cmd, opts)));
  videos
    .command('show <id>')
    .description('show one video job (its video_… id or its Media Library id)')
    .option('--watch', 'redraw status and progress every second until the job ends')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/videos.ts')).showVideoCommand(cmd, id, opts)));
  videos
    .command('cancel <id>')
    .description('ask for a video job to be cancelled (the provider is told; the hold is released)')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/videos.ts')).cancelVideoCommand(cmd, id, opts)));
}
