import { describe, expect, it } from 'vitest';
import { replayResponseStream } from '../../../src/formats/responses/index.ts';
import { parseSse } from '../../../src/sse/index.ts';
import { readFixture } from './helpers.ts';

/** The recorded stream's events, parsed. */
function events(name: string): Array<Record<string, any>> {
  return parseSse(readFixture(name)).map((record) => JSON.parse(record.data) as Record<string, any>);
}

/** Event types with runs of deltas folded into one (a replay sends each part's text in one delta). */
function shape(list: Array<Record<string, any>>): string[] {
  return list.map((event) => event.type as string).filter((type, index, all) => !(type.endsWith('.delta') && all[index - 1] === type));
}

describe('a stored response replayed as its stream (GET ?stream=true)', () => {
  it.each(['text-turn.sse.txt', 'function-call.sse.txt', 'parallel-function-calls.sse.txt', 'reasoning.sse.txt'])('%s: the recorded stream\'s events in its order, numbered from 0, ending with the whole object', (name) => {
    const recorded = events(name);
    const final = recorded.at(-1)!.response as Record<string, unknown>;
    const replayed = replayResponseStream(final).map((record) => JSON.parse(record.data) as Record<string, any>);
    expect(shape(replayed)).toEqual(shape(recorded));
    expect(replayed.map((event) => event.sequence_number)).toEqual(replayed.map((_, index) => index));
    expect(replayed.at(-1)!.response).toEqual(final);
    // The items open as the real stream opens them and close as they are stored.
    const added = replayed.filter((event) => event.type === 'response.output_item.added').map((event) => event.item);
    const firstAdded = recorded.filter((event) => event.type === 'response.output_item.added').map((event) => event.item);
    expect(added.map((item) => [item.type, item.id, item.status ?? null])).toEqual(firstAdded.map((item) => [item.type, item.id, item.status ?? null]));
    expect(replayed.filter((event) => event.type === 'response.output_item.done').map((event) => event.item)).toEqual(final.output);
  });

  it('starting_after leaves out the events up to that number', () => {
    const final = events('text-turn.sse.txt').at(-1)!.response as Record<string, unknown>;
    const all = replayResponseStream(final);
    const rest = replayResponseStream(final, 3);
    expect(rest).toEqual(all.slice(4));
  });
});
