/**
 * The README's "Command line" block is where a user looks up a command: it names every command
 * the CLI has and every option each one takes (`--help` says what they do). Read from the built
 * program, so a new command or option that the README leaves out fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';
import { REPO_ROOT } from '../helpers/spawn-gateway.ts';

/** The README's command block, one entry per command: its first line and the indented lines under it. */
function readmeEntries(): Map<string, string> {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /## Command line\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no ```text block under '## Command line'");
  const entries = new Map<string, string>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    if (/^\s/.test(line) && current) entries.set(current, `${entries.get(current)} ${line.trim()}`);
    else if (line.trim()) {
      // The command is the leading words of the syntax, before its arguments and the two spaces of its description.
      const words = line.split(/\s{2,}/)[0].split(' ');
      const args = words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w));
      current = (args < 0 ? words : words.slice(0, args)).join(' ');
      entries.set(current, line);
    }
  }
  return entries;
}

/** Every command that runs (no subcommands of its own), by its path under `gateway`. */
function leafCommands(command: Command, prefix: string[] = []): Array<{ name: string; command: Command }> {
  return command.commands
    .filter((sub) => sub.name() !== 'help')
    .flatMap((sub) => (sub.commands.length > 0 ? leafCommands(sub, [...prefix, sub.name()]) : [{ name: [...prefix, sub.name()].join(' '), command: sub }]));
}

describe("README's command block", () => {
  const entries = readmeEntries();
  const leaves = leafCommands(buildProgram());

  it('reads the commands of the CLI (the walk finds them)', () => {
    expect(leaves.map((l) => l.name)).toEqual(expect.arrayContaining(['serve', 'keys create', 'media ls', 'store check']));
  });

  it.each(leaves.map((l) => [l.name, l.command] as const))('lists `%s` with every option it takes', (name, command) => {
    const entry = entries.get(name);
    expect(entry, `README's command block has no line for '${name}'`).toBeDefined();
    const missing = command.options.map((o) => o.long).filter((long): long is string => !!long && long !== '--help' && !entry!.includes(long));
    expect(missing, `README's line for '${name}' leaves out options`).toEqual([]);
  });
});
