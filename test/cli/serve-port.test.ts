/**
 * `gateway serve --port` takes a TCP port. 99999 passed the flag's check and reached listen(),
 * whose failure said "is another server using it?", which it was not.
 */
import { CommanderError } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';

/** What `gateway serve --port <value>` refuses with, before the command runs (or undefined when the value passes). */
async function refusal(value: string): Promise<string | undefined> {
  let err = '';
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  const program = buildProgram();
  const serve = program.commands.find((c) => c.name() === 'serve')!;
  serve.action(async () => undefined); // the flag's parser is what is under test, not the server
  try {
    await program.parseAsync(['node', 'gateway', 'serve', '--port', value]);
    return undefined;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return err.trim();
  } finally {
    write.mockRestore();
  }
}

describe('serve --port', () => {
  it.each([['99999'], ['65536'], ['-1'], ['abc'], ['80.5']])('refuses %s as a port, saying the range', async (value) => {
    expect(await refusal(value)).toBe(`gateway: option '-p, --port <n>' argument '${value}' is invalid. --port must be a port number from 0 to 65535, got '${value}' (run with --help for usage)`);
  });

  it.each([['0'], ['8787'], ['65535']])('takes %s', async (value) => {
    expect(await refusal(value)).toBeUndefined();
  });
});
