import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/util/index.ts';

async function linesOf(pieces: string[]): Promise<string[]> {
  const out: string[] = [];
  async function* chunks() {
    for (const p of pieces) yield Buffer.from(p);
  }
  for await (const line of splitLines(chunks())) out.push(line.toString('utf8'));
  return out;
}

describe('splitLines', () => {
  it('yields each line once, whichever pieces it spans, the last even without its newline', async () => {
    expect(await linesOf(['a\nb', 'c', '\n\nd'])).toEqual(['a', 'bc', '', 'd']);
    expect(await linesOf(['a\n', 'b\n'])).toEqual(['a', 'b']);
    expect(await linesOf(['é', '\n'])).toEqual(['é']);
    expect(await linesOf([])).toEqual([]);
  });

  it('keeps a character cut between pieces whole', async () => {
    const bytes = Buffer.from('héllo\nwörld');
    async function* halves() {
      yield bytes.subarray(0, 2);
      yield bytes.subarray(2);
    }
    const out: string[] = [];
    for await (const line of splitLines(halves())) out.push(line.toString('utf8'));
    expect(out).toEqual(['héllo', 'wörld']);
  });
});
