import { describe, expect, it } from 'vitest';
import { availableTabs, initialAppState, reduceAppState } from '../../../src/tui/core/index.ts';
import { fakeAdminApi } from '../fake-admin-api.ts';

describe('reduceAppState', () => {
  const start = initialAppState(['overview', 'accounts', 'keys']);

  it('selects tabs by index and ignores indexes past the end', () => {
    expect(reduceAppState(start, { type: 'select', index: 2 }).tab).toBe('keys');
    expect(reduceAppState(start, { type: 'select', index: 7 })).toBe(start);
  });

  it('cycles both ways around the ends', () => {
    expect(reduceAppState(start, { type: 'cycle', delta: -1 }).tab).toBe('keys');
    const last = reduceAppState(start, { type: 'select', index: 2 });
    expect(reduceAppState(last, { type: 'cycle', delta: 1 }).tab).toBe('overview');
  });

  it('clears the status line on a tab change, not on a refresh', () => {
    const withStatus = reduceAppState(start, { type: 'status', status: { tone: 'error', text: 'boom' } });
    expect(reduceAppState(withStatus, { type: 'refresh' })).toMatchObject({ tick: 1, manualTick: 1, status: { text: 'boom' } });
    expect(reduceAppState(withStatus, { type: 'refresh', auto: true })).toMatchObject({ tick: 1, manualTick: 0 });
    expect(reduceAppState(withStatus, { type: 'select', index: 1 }).status).toBeNull();
  });

  it('clears a status only for the hook that posted it', () => {
    const posted = reduceAppState(start, { type: 'status', status: { tone: 'error', text: 'keys: down', source: 'keys' } });
    expect(reduceAppState(posted, { type: 'clear-status', source: 'models' }).status?.text).toBe('keys: down');
    expect(reduceAppState(posted, { type: 'clear-status', source: 'keys' }).status).toBeNull();
  });

  it('offers the Media and Batches tabs only when their procedures exist', () => {
    expect(availableTabs(fakeAdminApi()).map((t) => t.id)).toEqual(['overview', 'accounts', 'keys', 'models', 'media', 'batches']);
    expect(availableTabs(fakeAdminApi({}, { media: false })).map((t) => t.id)).toEqual(['overview', 'accounts', 'keys', 'models', 'batches']);
    expect(availableTabs(fakeAdminApi({}, { batches: false })).map((t) => t.id)).not.toContain('batches');
  });
});
