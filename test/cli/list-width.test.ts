/**
 * `gateway keys ls`, `models ls` and `accounts ls` (`media ls`: test/e2e/media-cli) on a terminal of 80 columns: every line fits it
 * (before, 119 and 134 columns, which the terminal wrapped into a tangle), free text cut with '…'
 * and optional columns left out with a line naming them. Through a pipe (a script) and with --json
 * the output is what it was: every column, nothing cut.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';
import { runInPty } from '../helpers/run-in-pty.ts';

describe('list tables on a terminal', () => {
  let base: string[];
  const ptys: Array<ReturnType<typeof runInPty>> = [];

  beforeAll(async () => {
    const dir = tempDir();
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    base = ['--config', configFile, '--data-dir', path.join(dir, 'data')];
    const email = 'a-rather-long-address@example.test';
    expect((await runCli([...base, 'accounts', 'create', '--email', email])).exitCode).toBe(0);
    const made = await runCli([...base, 'keys', 'create', '--account', email, '--name', 'the nightly batch runner of the data team', '--rpm', '120', '--models', 'mock/echo,mock/image', '--expires', '2031-01-31']);
    expect(made.exitCode).toBe(0);
  }, 60_000);
  afterAll(() => {
    for (const pty of ptys) pty.child.kill();
  });

  /** What `gateway <args>` draws on a terminal of `columns` columns, line by line. */
  const onTerminal = async (args: string[], columns: number) => {
    const pty = runInPty([...base, ...args], { size: { columns, rows: 50 } });
    ptys.push(pty);
    const done = await pty.child;
    expect(done.exitCode, pty.screen()).toBe(0);
    return pty.screen().split(/\r?\n/).filter((line) => line.trim() !== '');
  };

  it.each([
    [['keys', 'ls'], ['LAST USED', 'KEY', 'EXPIRES']],
    [['models', 'ls'], ['CAPABILITIES', 'CONTEXT']],
  ])('%j fits 80 columns on a terminal, naming the columns it left out; a pipe gets every column', async (args, left) => {
    const lines = await onTerminal(args, 80);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines.at(-1)).toBe(`(${left.join(', ')} left out to fit the terminal: --json shows every field)`);
    expect(lines[0]).toMatch(/^ID\s/);
    for (const header of left) expect(lines[0]).not.toContain(header);

    const piped = await runCli([...base, ...args]);
    expect(piped.exitCode).toBe(0);
    const all = String(piped.stdout).split('\n');
    if (args[0] === 'keys') expect(all[1]).toContain('  the nightly batch runner of the data team  a-rather-long-address@example.test  ');
    for (const header of left) expect(all[0]).toContain(header);
    expect(all.some((line) => line.length > 80)).toBe(true);
    expect(String(piped.stdout)).not.toContain('left out to fit');
  }, 60_000);

  it('keys ls cuts the free text (name, account) with an ellipsis, keeps ids whole; a wide terminal shows the table as a pipe does', async () => {
    const lines = await onTerminal(['keys', 'ls'], 80);
    const row = lines.find((line) => line.startsWith('key_'))!;
    expect(row).toMatch(/^key_[A-Za-z0-9]+ {2}/);
    expect(row).toMatch(/ {2}the night[a-z ]*…/);
    expect(row).toMatch(/ {2}a-rather[a-z-]*…/);
    expect(row).not.toContain('the nightly batch runner of the data team');
    const wide = await onTerminal(['keys', 'ls'], 250);
    const piped = String((await runCli([...base, 'keys', 'ls'])).stdout).split('\n').filter((line) => line.trim() !== '');
    expect(wide).toEqual(piped);
  }, 60_000);

  it('accounts ls cuts the email with an ellipsis to fit 80 columns, every column kept; a pipe gets the whole email', async () => {
    const lines = await onTerminal(['accounts', 'ls'], 80);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ID\s+EMAIL\s+TIER\s+CREDITS\s+QUOTA\s+SPEND CAP\s+SUSPENDED$/);
    expect(lines.find((line) => line.includes('a-rather'))).toMatch(/^acct_[A-Za-z0-9]+ {2}a-rather[a-z-]*…/);
    expect(lines.join('\n')).not.toContain('left out to fit');
    expect(String((await runCli([...base, 'accounts', 'ls'])).stdout)).toContain('a-rather-long-address@example.test');
  }, 60_000);

  it('--json is the same on a terminal as through a pipe', async () => {
    for (const args of [['keys', 'ls', '--json'], ['models', 'ls', '--json']]) {
      const drawn = (await onTerminal(args, 80)).join('\n');
      const piped = String((await runCli([...base, ...args])).stdout).trim();
      expect(JSON.parse(drawn)).toEqual(JSON.parse(piped));
    }
  }, 60_000);
});
