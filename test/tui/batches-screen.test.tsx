import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { batch, fakeAdminApi } from './fake-admin-api.ts';
import { KEYS, renderWithAdmin } from './render-with-admin.tsx';

afterEach(() => cleanup());

/** Newest first: a running batch, a completed one, one with input errors, one validating, then 60 completed. */
function batches() {
  return [
    batch('batch_run001', { account: 'ann@x.test', request_counts: { total: 40, completed: 12, failed: 2 }, metadata: { job: 'nightly' } }),
    batch('batch_done02', { status: 'completed', endpoint: '/v1/messages', request_counts: { total: 10, completed: 9, failed: 1 }, output_file_id: 'file-done02-output', error_file_id: 'file-done02-errors', completed_at: 1_767_226_000 }),
    batch('batch_bad003', { status: 'failed', request_counts: { total: 0, completed: 0, failed: 0 }, errors: { object: 'list', data: [{ code: 'duplicate_custom_id', message: "Line 2: the custom_id 'a' is used more than once.", line: 2, param: 'custom_id' }] } }),
    batch('batch_new004', { status: 'validating', request_counts: { total: 0, completed: 0, failed: 0 } }),
    ...Array.from({ length: 60 }, (_, i) => batch(`batch_old${String(i).padStart(3, '0')}`, { status: 'completed', request_counts: { total: 5, completed: 5, failed: 0 } })),
  ];
}

describe('admin TUI: Batches tab', () => {
  it('lists batches with progress (completed/failed/total), status, account and endpoint; pages through them', async () => {
    const api = fakeAdminApi({ batches: batches() });
    const tui = await renderWithAdmin(api);
    await tui.press('6');
    const frame = await tui.waitFor('Batches (page 1, more after · 50 shown · status any)');
    expect(frame).toMatch(/ID\s+STATUS\s+PROGRESS\s+DONE\s+FAILED\s+TOTAL\s+ACCOUNT\s+ENDPOINT\s+CREATED/);
    // 100 columns: account and endpoint give way; the line under the table shows them whole.
    expect(frame).toMatch(/› batch_run001\s+in_progress\s+\[████░░░░░░\]\s+35%\s+12\s+2\s+40\s+ann@x\.t…\s+\/v1\/cha…/);
    expect(frame).toMatch(/batch_done02\s+completed\s+\[██████████\] 100%\s+9\s+1\s+10/);
    expect(frame).toContain('12 completed, 2 failed, 40 total · /v1/chat/completions · ann@x.test');
    await tui.press(']');
    const second = await tui.waitFor('Batches (page 2 · 14 shown · status any)');
    expect(second).toMatch(/› batch_old046\s+completed/);
    expect(api.calls).toContain('batches.list 50 batch_old045');
    await tui.press('[');
    await tui.waitFor('Batches (page 1, more after');
  });

  it('on 80 columns the header is one line, cut at the edge as the rows are, with the first row under it', async () => {
    const tui = await renderWithAdmin(fakeAdminApi({ batches: batches() }), { size: { columns: 80, rows: 24 } });
    await tui.press('6');
    const lines = (await tui.waitFor('Batches (page 1')).split('\n');
    const header = lines.findIndex((l) => /^\s+ID\s+STATUS\s+PROGRESS/.test(l));
    expect(lines[header].length).toBeLessThanOrEqual(80);
    expect(lines[header + 1]).toMatch(/^› batch_run001\s+in_progress/);
  });

  it('filters by status: active, then each end state', async () => {
    const api = fakeAdminApi({ batches: batches() });
    const tui = await renderWithAdmin(api);
    await tui.press('6');
    await tui.waitFor('status any');
    await tui.press('s');
    const active = await tui.waitFor('Batches (page 1 · 2 shown · status active)');
    expect(active).toContain('batch_run001');
    expect(active).toContain('batch_new004');
    expect(active).not.toContain('batch_done02');
    expect(api.calls).toContain('batches.list 50 validating,in_progress,finalizing,cancelling');
    await tui.press('s', 's');
    expect(await tui.waitFor('status failed')).toContain('1 input error(s): duplicate_custom_id');
  });

  it('opens a batch: counts, files, times, metadata and input errors; Esc goes back', async () => {
    const tui = await renderWithAdmin(fakeAdminApi({ batches: batches() }));
    await tui.press('6');
    await tui.waitFor('status any');
    await tui.press(KEYS.down, KEYS.enter);
    const opened = await tui.waitFor('Batch batch_done02');
    expect(opened).toContain('completed · /v1/messages · local@localhost · window 24h');
    expect(opened).toContain('9 completed, 1 failed, 10 total');
    expect(opened).toContain('output file-done02-output · errors file-done02-errors');
    expect(opened).toContain('completed 2026-01-01 00:06');
    await tui.press(KEYS.escape);
    await tui.waitFor('↑/↓ move');
    await tui.press(KEYS.down, KEYS.enter);
    expect(await tui.waitFor('input errors (1)')).toContain("line 2: duplicate_custom_id: Line 2: the custom_id 'a' is used more than once.");
    await tui.press(KEYS.escape, KEYS.up, KEYS.up, KEYS.up, KEYS.enter);
    expect(await tui.waitFor('Batch batch_run001')).toContain('metadata job=nightly');
  });

  it('cancels a batch after y, not after n; a finished one is not asked about', async () => {
    const api = fakeAdminApi({ batches: batches() });
    const tui = await renderWithAdmin(api);
    await tui.press('6');
    await tui.waitFor('status any');
    await tui.press('x');
    await tui.waitFor('Cancel batch batch_run001?');
    expect(tui.frame()).toContain('12 completed, 2 failed, 40 total for ann@x.test');
    await tui.press('n');
    expect(await tui.waitFor('↑/↓ move')).not.toContain('Cancel batch');
    expect(api.calls.filter((c) => c.startsWith('batches.cancel'))).toEqual([]);
    await tui.press('x');
    await tui.waitFor('Cancel batch batch_run001?');
    await tui.press('y');
    await tui.waitFor('✓ Batch batch_run001 is cancelling (12 completed, 2 failed, 40 total).');
    expect(api.calls).toContain('batches.cancel batch_run001');
    expect(await tui.waitFor(/› batch_run001\s+cancelling/)).toMatch(/› batch_run001\s+cancelling/);
    // A finished batch: a word in the status line, no question.
    await tui.press(KEYS.down, 'x');
    expect(await tui.waitFor('Batch batch_done02 is completed: nothing to cancel.')).not.toContain('y = yes');
    // From the opened batch too: a validating batch nobody runs ends at once.
    await tui.press(KEYS.down, KEYS.down, KEYS.enter);
    await tui.waitFor('Batch batch_new004');
    await tui.press('x');
    await tui.waitFor('Cancel batch batch_new004?');
    await tui.press('y');
    await tui.waitFor('✓ Batch batch_new004 is cancelled');
    expect(await tui.waitFor(/cancelled · \/v1\/chat\/completions/)).toContain('Batch batch_new004');
  });

  it('shows a failed cancel in the status line and keeps running', async () => {
    const api = fakeAdminApi({ batches: batches() });
    api.failures.set('batches.cancel', 'connection refused');
    const tui = await renderWithAdmin(api);
    await tui.press('6');
    await tui.waitFor('status any');
    await tui.press('x');
    await tui.waitFor('Cancel batch batch_run001?');
    await tui.press('y');
    expect(await tui.waitFor('✗ Cancelling batch failed: connection refused')).toMatch(/batch_run001\s+in_progress/);
    await tui.press('2');
    await tui.waitFor('Accounts (1)');
  });
});
