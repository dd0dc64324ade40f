import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { launchChromium, seriousViolations } from './launch-chromium.ts';

const EMAIL = 'ada@example.test';
const PASSWORD = 'correct horse battery';

describe('the dashboard in Chromium: an account signs in and uses every page', () => {
  const dir = tempDir('gw-browser-');
  const dataDir = path.join(dir, 'data');
  let configFile: string;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let key: string;
  const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);

  const go = async (link: string, heading: string) => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const sessionToken = () => page.evaluate(() => localStorage.getItem('gateway.session')!);

  beforeAll(async () => {
    // A Gemini upstream whose answers to a Google Search request are grounded by two queries (Gemini 3: two searches).
    gemini = await startGeminiFake({ models: { 'gemini-3-flash-preview': { thinking: true, gemini3: true } }, apiKey: 'goog-upstream-key', searchQueries: ['euro 2024 winner', 'euro 2024 final score'] });
    configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' }, google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-3-flash-preview', 'house-model'] } } });
    gw = await spawnGateway({ configFile, dataDir });
    const created = await cli('accounts', 'create', '--email', EMAIL, '--password', PASSWORD, '--credits', '100000', '--tier', 'enterprise');
    expect(created.exitCode, String(created.stderr)).toBe(0);
    const made = await cli('keys', 'create', '--account', EMAIL, '--json');
    key = (JSON.parse(String(made.stdout)) as { key: string }).key;
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
    await gemini?.close();
  });

  it('signs in with email and password', async () => {
    await page.goto(gw.url);
    // The first run's account has no password: the form says how to give it one.
    await page.getByText('gateway accounts set local@localhost --password …').waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByTestId('balance').filter({ hasText: '100,000 cr' }).waitFor();
  });

  it('creates a key the openai client can use, then revokes it and sees it refused', async () => {
    await go('API keys', 'API keys');
    await page.getByLabel('Name').fill('from the browser');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key').textContent())!;
    expect(secret).toMatch(/^sk-gw-/);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: secret, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'made in a browser' }] });
    expect(answer.choices[0].message.content).toContain('made in a browser');

    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.locator('tr', { hasText: 'from the browser' });
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await row.getByText('revoked').waitFor();
    const refused = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'again' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
  });

  it('the key form offers no past expiry: its date starts tomorrow (UTC), and a past one is refused by the form, not the server', async () => {
    await go('API keys', 'API keys');
    const expires = page.getByLabel('Expires');
    expect(await expires.getAttribute('min')).toBe(new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
    await page.getByLabel('Name').fill('in the past');
    await expires.fill('2020-01-01');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await expires.evaluate((input: HTMLInputElement) => input.validity.rangeUnderflow)).toBe(true);
    expect(await page.getByRole('alert').filter({ hasText: '--expires' }).count()).toBe(0);
    expect(await page.locator('tr', { hasText: 'in the past' }).count()).toBe(0);
    await expires.fill('');
    await page.getByLabel('Name').fill('');
  });

  it('shows an image generated with mock in the gallery', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    await client.images.generate({ model: 'mock/image', prompt: 'a lighthouse at dusk', size: '256x256', response_format: 'url' });
    await go('Media Library', 'Media Library');
    const image = page.getByRole('img', { name: /a lighthouse at dusk/ });
    await image.waitFor();
    // Loaded, not just named: the temp image came through the page's CSP.
    await page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0, await image.elementHandle());
    expect(await page.locator('[data-media-id]').first().getByTestId('media-status').textContent()).toBe('completed');
  });

  it('a pending Media Library record turns completed by itself after a PATCH', async () => {
    const token = await sessionToken();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${gw.url}/v1/media/generations`, { method: 'POST', headers: auth, body: JSON.stringify({ media_type: 'video', model: 'some/video-model', prompt: 'a cat surfing' }) });
    const record = (await created.json()) as { id: string };
    await page.reload();
    const tile = page.locator(`[data-media-id="${record.id}"]`);
    await tile.getByTestId('media-status').filter({ hasText: 'pending' }).waitFor();
    const patched = await fetch(`${gw.url}/v1/media/generations/${record.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ status: 'completed', primary_url: `${gw.url}/clip.mp4` }) });
    expect(patched.status).toBe(200);
    await tile.getByTestId('media-status').filter({ hasText: 'completed' }).waitFor();
    await tile.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('a cat surfing').waitFor();
    // A video result plays inline.
    expect(await dialog.locator('video').getAttribute('src')).toBe(`${gw.url}/clip.mp4`);
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('shows a gateway-run video job: its thumbnail as a picture and the video playing, both fetched with the session', async () => {
    const token = await sessionToken();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${gw.url}/v1/media/generations`, { method: 'POST', headers: auth, body: JSON.stringify({ media_type: 'video', model: 'mock/video', prompt: 'a wave at night' }) });
    const record = (await created.json()) as { id: string };
    await page.reload();
    const tile = page.locator(`[data-media-id="${record.id}"]`);
    await tile.getByTestId('media-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
    // The content URL answers 401 without the session, which an <img> cannot send: the page shows a blob of it.
    const thumb = tile.getByRole('img', { name: /a wave at night/ });
    await page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0, await thumb.elementHandle());
    expect(await thumb.getAttribute('src')).toMatch(/^blob:/);
    await tile.click();
    const video = page.getByRole('dialog').locator('video');
    await page.waitForFunction((el) => (el as HTMLVideoElement).readyState >= 1 && (el as HTMLVideoElement).duration > 0, await video.elementHandle());
    expect(await video.getAttribute('src')).toMatch(/^blob:/);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  });

  it("downloads a gateway-run job's result from the dialog's Results link, fetched with the session", async () => {
    const token = await sessionToken();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${gw.url}/v1/media/generations`, { method: 'POST', headers: auth, body: JSON.stringify({ media_type: 'video', model: 'mock/video', prompt: 'a kite in the wind' }) });
    const record = (await created.json()) as { id: string };
    await go('Media Library', 'Media Library');
    await page.reload();
    const tile = page.locator(`[data-media-id="${record.id}"]`);
    await tile.getByTestId('media-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
    const contentPath = `/v1/media/generations/${record.id}/content`;
    const fetched: string[] = [];
    const count = (request: { url(): string }) => { if (new URL(request.url()).pathname === contentPath && !request.url().includes('variant=')) fetched.push(request.url()); };
    page.on('request', count);
    await tile.click();
    const dialog = page.getByRole('dialog');
    const link = dialog.getByRole('link', { name: new RegExp(`/v1/media/generations/${record.id}`) });
    await link.first().waitFor();
    await dialog.locator('video[src^="blob:"]').waitFor();
    // The dialog's player and its Results link share one fetch of the (possibly large) file.
    expect(fetched).toHaveLength(1);
    page.off('request', count);
    // Opened as a plain link the URL answers 401 (no session header): the page fetches it with the session instead,
    // so a click, a middle-click and a ctrl-click (which open a new tab on a plain link) all save the file.
    const tabs = browser.context.pages().length;
    for (const how of [{}, { button: 'middle' }, { modifiers: ['Control'] }] as const) {
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), link.first().click(how)]);
      expect(download.url()).toMatch(/^blob:/);
      expect(download.suggestedFilename()).toMatch(new RegExp(`^${record.id}.*\\.mp4$`));
      const bytes = fs.readFileSync((await download.path())!);
      expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    }
    expect(browser.context.pages()).toHaveLength(tabs);
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('shows a batch running to completed with its progress', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const lines = ['one', 'two', 'three'].map((text, i) => JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: text }] } }));
    const file = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n') + '\n'), 'batch.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await go('Batches', 'Batches');
    const row = page.locator(`[data-batch-id="${batch.id}"]`);
    await row.getByTestId('batch-status').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(await row.getByTestId('batch-progress').textContent()).toBe('3 / 3');
    await row.getByRole('button', { name: batch.id }).click();
    await page.getByRole('button', { name: 'Download output' }).waitFor();
  });

  it('streams a playground answer from mock, and through a converted route (Messages in, Chat upstream)', async () => {
    await go('Playground', 'Playground');
    await page.getByRole('button', { name: 'Create a playground key' }).click();
    await page.waitForFunction(() => (document.querySelector('input[type=password]') as HTMLInputElement).value.startsWith('sk-gw-'));
    for (const [format, words] of [['OpenAI Chat Completions', 'streamed through chat'], ['Anthropic Messages', 'converted from messages']] as const) {
      await page.getByRole('button', { name: 'New conversation' }).click();
      await page.getByLabel('Format').selectOption({ label: format });
      await page.getByLabel('Model').first().fill('mock/echo');
      await page.getByLabel('Message', { exact: true }).fill(words);
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByTestId('answer').filter({ hasText: words }).waitFor();
      const meta = page.getByTestId('answer-meta');
      await meta.getByText(/\d+ in, \d+ out/).waitFor();
      await meta.getByText('x-routing-mode').waitFor();
    }
  });

  it("the request table shows a request's web searches, and nothing for a request without", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'no search here' }] });
    const grounded = await fetch(`${gw.url}/v1beta/models/gemini-3-flash-preview:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Who won Euro 2024?' }] }], tools: [{ google_search: {} }] }),
    });
    expect(grounded.status, await grounded.text()).toBe(200);
    await go('Usage', 'Usage');
    const table = page.getByTestId('requests');
    const searches = (await table.locator('thead th').allTextContents()).indexOf('Web searches');
    expect(searches).toBeGreaterThan(-1);
    const row = table.locator('tbody tr', { hasText: 'gemini-3-flash-preview' });
    await row.waitFor();
    expect(await row.locator('td').nth(searches).textContent()).toBe('2');
    expect(await table.locator('tbody tr', { hasText: 'mock/echo' }).first().locator('td').nth(searches).textContent()).toBe('');
  });

  // Before: a free model's bar took its request count as its value, so one moderation read "1 cr" below "0.03 cr".
  it("the Overview's top models show every model's spend in credits once any model cost credits, a free one 0 cr", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    await client.moderations.create({ model: 'mock/omni-moderation-latest', input: 'is this fine' });
    await go('Overview', 'Overview');
    const rows = page.locator('section[aria-labelledby="top-models"] li');
    const free = rows.filter({ hasText: 'mock/omni-moderation-latest' });
    await free.waitFor();
    expect((await free.textContent())?.trim()).toBe('mock/omni-moderation-latest0 cr');
    expect(await rows.filter({ hasText: 'mock/image' }).textContent()).toMatch(/mock\/image[\d.,]+ cr$/);
  });

  it("the Models page shows a media model's price per item, not its zero token prices", async () => {
    await go('Models', 'Models');
    const table = page.getByRole('table');
    const headers = await table.locator('thead th').allTextContents();
    const cells = async (id: string) => {
      const row = table.locator('tbody tr', { hasText: id }).first();
      await row.waitFor();
      const texts = await row.locator('td').allTextContents();
      return { input: texts[headers.indexOf('Input / 1M')], output: texts[headers.indexOf('Output / 1M')], media: texts[headers.indexOf('Media')] };
    };
    expect(await cells('mock/echo')).toEqual({ input: '$0.1', output: '$0.2', media: '—' });
    expect(await cells('mock/image')).toEqual({ input: '—', output: '—', media: '$0.01 / image' });
    expect(await cells('mock/tts')).toEqual({ input: '—', output: '—', media: '$15 / 1M chars' });
    expect(await cells('mock/whisper')).toEqual({ input: '—', output: '—', media: '$0.006 / min' });
    expect(await cells('mock/video')).toEqual({ input: '—', output: '—', media: '$0.1 / s' });
    expect(await cells('mock/3d')).toEqual({ input: '—', output: '—', media: '$0.05 / job' });
    // A model nobody priced says so, as `gateway models ls` does (it showed '—', like a free one).
    expect(await cells('google/house-model')).toEqual({ input: 'UNPRICED', output: '—', media: '—' });
  });

  it('every page passes axe-core with no serious or critical violation', async () => {
    const found: Record<string, string[]> = {};
    for (const [link, heading] of [['Overview', 'Overview'], ['API keys', 'API keys'], ['Usage', 'Usage'], ['Media Library', 'Media Library'], ['Batches', 'Batches'], ['Models', 'Models'], ['Playground', 'Playground'], ['Operator', 'Operator']] as const) {
      await go(link, heading);
      // Pages with data wait for it: axe should see them filled, not loading.
      if (link === 'Models') await page.getByRole('cell', { name: /mock\/echo/ }).first().waitFor();
      if (link === 'Usage') await page.getByTestId('requests').locator('tbody tr').first().waitFor();
      found[link] = await seriousViolations(page);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to gateway' }).waitFor();
    found['Sign in'] = await seriousViolations(page);
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
  }, 120_000);
});
