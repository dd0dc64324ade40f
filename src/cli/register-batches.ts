import { type Command, Option } from 'commander';
import { listCommand } from './list-command.ts';
import { runAction } from './run-action.ts';

const STATUSES = ['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled'];

/** `gateway batches ls|show|cancel`; the command module loads only when one of them runs. */
export function registerBatchCommands(program: Command): void {
  const batches = program.command('batches').description('batches (/v1/batches) of every account');
  listCommand(batches)
    .description('list batches, newest first')
    .option('--account <email>', 'only this account')
    .addOption(new Option('--status <s...>', 'only these statuses').choices(STATUSES))
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/batches.ts')).listBatchesCommand(cmd, opts)));
  batches
    .command('show <id>')
    .description('show one batch; --watch draws its progress until it ends')
    .option('--watch', 'follow the progress (completed/failed/total, rate, ETA) until the batch ends')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/batches.ts')).showBatchCommand(cmd, id, opts)));
  batches
    .command('cancel <id>')
    .description('cancel a batch (lines in flight may finish; what finished is in its output file)')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/batches.ts')).cancelBatchCommand(cmd, id, opts)));
}
