/**
 * `gateway keys create|set --help` lists the endpoint groups a key scope may name from the
 * format registry (every wire format, then media and batches), not from a list in the CLI that
 * a new format would have to edit; the registry is loaded only when a keys command runs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CommanderError } from 'commander';
import { keyEndpoints } from '../../src/accounts/index.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { registerFormat, unregisterFormat } from '../../src/formats/index.ts';
import { toyFormat } from '../formats/toy/index.ts';

async function helpOf(...args: string[]): Promise<string> {
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  try {
    await buildProgram().parseAsync(['node', 'gateway', ...args, '--help']);
  } catch (error) {
    if (!(error instanceof CommanderError) || error.code !== 'commander.helpDisplayed') throw error;
  } finally {
    write.mockRestore();
  }
  return out.replace(/\s+/g, ' ');
}

describe('keys --endpoints help', () => {
  beforeAll(() => registerFormat(toyFormat));
  afterAll(() => unregisterFormat(toyFormat.id));

  it.each([['create'], ['set', 'key_1']])('keys %s names every endpoint group, a registered format included', async (...command) => {
    const help = await helpOf('keys', ...command);
    expect(keyEndpoints()).toEqual(expect.arrayContaining(['chat', 'responses', 'messages', 'gemini', 'toy', 'embeddings']));
    expect(help).toContain(`comma-separated: ${keyEndpoints().join(', ')} (`);
    expect(help).not.toContain('<endpoint groups>');
  });
});
