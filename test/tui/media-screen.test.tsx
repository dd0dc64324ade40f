import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeAdminApi, media } from './fake-admin-api.ts';
import { KEYS, renderWithAdmin } from './render-with-admin.tsx';

afterEach(() => cleanup());

/** 120 records, newest first: every third a failed video, the rest completed images. */
function library() {
  return Array.from({ length: 120 }, (_, i) =>
    i % 3 === 2
      ? media(`gen_video_${String(i).padStart(3, '0')}`, { media_type: 'video', status: 'failed', error: 'upstream said no', width: null, height: null })
      : media(`gen_image_${String(i).padStart(3, '0')}`, {
          prompt: `picture ${i}`,
          primary_url: `http://127.0.0.1:8787/v1/temp-images/img_${i}.png`,
          result_urls: [`http://127.0.0.1:8787/v1/temp-images/img_${i}.png`, `http://127.0.0.1:8787/v1/temp-images/img_${i}b.png`],
          parameters: { operation: 'generate', n: 2, size: '1024x1024', quality: 'hd' },
        }),
  );
}

describe('admin TUI: Media tab', () => {
  it('shows the progress of jobs the gateway runs, and follows it on refresh', async () => {
    const job = media('gen_video_job', { media_type: 'video', status: 'processing', model: 'mock/video', progress: 40, width: null, height: null, completed_at: null });
    const api = fakeAdminApi({ media: [job, media('gen_img')] });
    const tui = await renderWithAdmin(api);
    await tui.press('5');
    expect(await tui.waitFor(/gen_video_job\s+video\s+processing 40%/)).toMatch(/gen_img\s+image\s+completed\s/);
    job.progress = 85;
    await tui.press('r');
    await tui.waitFor(/gen_video_job\s+video\s+processing 85%/);
    Object.assign(job, { status: 'completed', progress: 100 });
    await tui.press('r');
    await tui.waitFor(/gen_video_job\s+video\s+completed\s/);
  });

  it('pages through every record, 50 at a time', async () => {
    const api = fakeAdminApi({ media: library() });
    const tui = await renderWithAdmin(api);
    await tui.press('5');
    expect(await tui.waitFor('page 1 of 3 · 1–50 of 120 · type any · status any')).toContain('gen_image_000');
    await tui.press(']');
    expect(await tui.waitFor('page 2 of 3 · 51–100 of 120')).toContain('gen_image_051');
    await tui.press(']', ']');
    expect(await tui.waitFor('page 3 of 3 · 101–120 of 120')).toMatch(/› gen_image_100\s+image/);
    await tui.press('[');
    await tui.waitFor('page 2 of 3');
    expect(api.calls).toEqual(expect.arrayContaining(['media.list 1 50', 'media.list 2 50', 'media.list 3 50']));
  });

  it('filters by type and by status, starting again from page 1', async () => {
    const api = fakeAdminApi({ media: library() });
    const tui = await renderWithAdmin(api);
    await tui.press('5');
    await tui.waitFor('page 1 of 3');
    await tui.press(']');
    await tui.waitFor('page 2 of 3');
    await tui.press('t', 't');
    const videos = await tui.waitFor('page 1 of 1 · 1–40 of 40 · type video · status any');
    expect(videos).toContain('gen_video_002');
    expect(videos).not.toContain('gen_image_');
    expect(api.calls).toContain('media.list 1 50 video');
    await tui.press('s', 's', 's');
    expect(await tui.waitFor('(none · type video · status completed)')).toContain('No media generations here.');
    await tui.press('s');
    await tui.waitFor('1–40 of 40 · type video · status failed');
    // Back to no filter: t cycles image, video, music, threed, any.
    await tui.press('t', 't', 't', 's');
    await tui.waitFor('page 1 of 3 · 1–50 of 120 · type any · status any');
  });

  it('opens a record: full id, every URL, parameters; Esc goes back', async () => {
    const tui = await renderWithAdmin(fakeAdminApi({ media: library() }));
    await tui.press('5');
    await tui.waitFor('page 1 of 3');
    await tui.press(KEYS.down, KEYS.enter);
    const opened = await tui.waitFor('Media record gen_image_001');
    expect(opened).toContain('http://127.0.0.1:8787/v1/temp-images/img_1.png');
    expect(opened).toContain('http://127.0.0.1:8787/v1/temp-images/img_1b.png');
    expect(opened).toContain('"quality": "hd"');
    expect(opened).toContain('prompt: picture 1');
    // q is not quit while a record is open, and tab keys are off.
    await tui.press('q', '2');
    expect(tui.frame()).toContain('Media record gen_image_001');
    await tui.press(KEYS.escape);
    // The list again, and the record gone (the record's frame says 'page 1 of 3' too).
    expect(await tui.waitFor(/^(?![\s\S]*Media record)[\s\S]*page 1 of 3/)).toContain('gen_image_001');
  });

  it('never sends a control character a client wrote to the terminal, in the list or an opened record', async () => {
    const hostile = '\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e';
    const api = fakeAdminApi({ media: [media('gen_hostile', { model: `m${hostile}x`, prompt: `p${hostile}q`, primary_url: `http://x/${hostile}`, result_urls: [] })] });
    const tui = await renderWithAdmin(api);
    await tui.press('5');
    const list = await tui.waitFor('gen_hostile');
    const unsafe = /\u001b\]|\u001b\[2J|\u0007|\u009b|\u202e/;
    expect(list).not.toMatch(unsafe);
    await tui.press(KEYS.enter);
    expect(await tui.waitFor('Media record gen_hostile')).not.toMatch(unsafe);
  });

  it('deletes a record after y, not after n; the count and the page follow', async () => {
    const api = fakeAdminApi({ media: library() });
    const tui = await renderWithAdmin(api);
    await tui.press('5');
    await tui.waitFor('page 1 of 3');
    await tui.press('t', 't');
    await tui.waitFor('1–40 of 40 · type video');
    await tui.press(KEYS.down, 'x');
    await tui.waitFor('Delete media record gen_video_005?');
    await tui.press('n');
    expect(await tui.waitFor('↑/↓ move')).not.toContain('Delete media record');
    expect(api.calls.filter((c) => c.startsWith('media.remove'))).toEqual([]);
    await tui.press('x');
    await tui.waitFor('Delete media record gen_video_005?');
    await tui.press('y');
    await tui.waitFor('✓ Deleted media record gen_video_005.');
    expect(api.calls).toContain('media.remove gen_video_005');
    const after = await tui.waitFor('1–39 of 39 · type video');
    expect(after).not.toMatch(/gen_video_005\s+video/);
    expect(after).toMatch(/› gen_video_008\s+video/);
    // From an opened record too.
    await tui.press(KEYS.enter);
    await tui.waitFor('Media record gen_video_008');
    expect(tui.frame()).toContain('error: upstream said no');
    await tui.press('x');
    await tui.waitFor('Delete media record gen_video_008?');
    await tui.press('y');
    await tui.waitFor('1–38 of 38 · type video');
    expect(tui.frame()).not.toContain('Media record gen_video_008');
  });
});
