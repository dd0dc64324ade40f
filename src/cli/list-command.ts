import type { Command } from 'commander';

/**
 * A group's `ls` (also `list`), which is what the group does alone: `gateway keys` lists the keys
 * as `gateway models` lists the models, rather than print its help and exit 1. A word that is none
 * of the group's commands (`gateway keys lst`) is refused naming them, not as "too many arguments
 * for 'ls'", with the one it is closest to as commander suggests one (`craete`: Did you mean create?).
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
      const meant = closestName(word, names);
      const suggestion = meant === undefined ? '' : `Did you mean ${meant}? `;
      ls.error(`unknown command '${word.slice(0, 64)}' for 'gateway ${group.name()}' (${suggestion}its commands: ${names.join(', ')})`, { code: 'commander.unknownCommand' });
    });
}

/** The name closest to `word` by edit distance, when close enough to be a typo of it (commander's rule: fewer than 3 edits, over 40 % alike). */
function closestName(word: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    const edits = editDistance(word.slice(0, 64), name);
    const length = Math.max(word.length, name.length);
    if ((length - edits) / length > 0.4 && edits < bestDistance) {
      best = name;
      bestDistance = edits;
    }
  }
  return best;
}

/** Levenshtein distance (the CLI's entry loads only commander, so no library for a line's typo). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}
