import type { Command } from 'commander';

/**
 * A group's `ls` (also `list`), which is what the group does alone: `gateway keys` lists the keys
 * as `gateway models` lists the models, rather than print its help and exit 1. A word that is none
 * of the group's commands (`gateway keys lst`) is refused naming them, not as "too many arguments
 * for 'ls'".
 */
export function listCommand(group: Command): Command {
  return group
    .command('ls', { isDefault: true })
    .alias('list')
    .allowExcessArguments(true)
    .hook('preAction', (_ls, ls) => {
      const word = ls.args[0];
      if (word === undefined) return;
      const names = group.commands.map((command) => command.name()).filter((name) => name !== 'help');
      ls.error(`unknown command '${word.slice(0, 64)}' for 'gateway ${group.name()}' (its commands: ${names.join(', ')})`, { code: 'commander.unknownCommand' });
    });
}
