import { describe, expect, it } from 'vitest';
import { RefusedAsks } from '../../src/routing/index.ts';

describe('RefusedAsks', () => {
  it('remembers a refusal per provider for an hour, then forgets it', () => {
    let now = 1_000_000;
    const asks = new RefusedAsks(() => now);
    expect(asks.of('nv')).toEqual([]);
    asks.remember('nv', 'reasoning.summary');
    expect(asks.of('nv')).toEqual(['reasoning.summary']);
    expect(asks.of('ok')).toEqual([]);
    now += 59 * 60 * 1000;
    expect(asks.of('nv')).toEqual(['reasoning.summary']);
    now += 2 * 60 * 1000;
    expect(asks.of('nv')).toEqual([]);
    // Refused again later: remembered again.
    asks.remember('nv', 'reasoning.summary');
    expect(asks.of('nv')).toEqual(['reasoning.summary']);
  });
});
