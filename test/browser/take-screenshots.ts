/**
 * Screenshots of the dashboard's main pages (docs/dashboard/*.png) and its time to interactive,
 * run by hand: `node --import tsx test/browser/take-screenshots.ts`. Seeds a fresh gateway with
 * requests, images, a running video job and a batch, then drives Debian's chromium.
 * Time to interactive: from navigation start to the Overview's balance drawn from live data,
 * in a fresh browser context (nothing cached), the median of 7 loads.
 */
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import type { Page } from 'playwright-core';
import { REPO_ROOT, runCli, spawnGateway, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';
import { launchChromium } from './launch-chromium.ts';

const EMAIL = 'ada@example.test';
const PASSWORD = 'correct horse battery';
const OUT = path.join(REPO_ROOT, 'docs', 'dashboard');

const dir = tempDir('gw-shots-');
// flaky fails every call, so a request naming a fallback shows on the Operator page's Fallbacks card and table.
const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' }, backup: { plugin: 'mock' }, flaky: { plugin: 'mock', failFirst: 1_000_000 } }, routing: { retry: { attempts: 1 } } });
const dataDir = path.join(dir, 'data');
const gw = await spawnGateway({ configFile, dataDir });
const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
await cli('accounts', 'create', '--email', EMAIL, '--password', PASSWORD, '--credits', '250000', '--tier', 'pro');
const key = (JSON.parse(String((await cli('keys', 'create', '--account', EMAIL, '--name', 'laptop', '--json')).stdout)) as { key: string }).key;
await cli('keys', 'create', '--account', EMAIL, '--name', 'ci', '--models', 'mock/*', '--endpoints', 'chat,batches', '--limit', '5000', '--limit-reset', 'monthly');
const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

for (let i = 0; i < 40; i++) {
  const model = i % 3 === 0 ? 'backup/echo' : 'mock/echo';
  await client.chat.completions.create({ model, messages: [{ role: 'user', content: `question ${i}: ${'why '.repeat(i * 5)}` }] });
}
for (const prompt of ['a lighthouse at dusk', 'a red fox in snow', 'isometric city block', 'a bowl of ramen']) {
  await client.images.generate({ model: 'mock/image', prompt, size: '256x256', response_format: 'url' });
}
const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ custom_id: `l${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: `line ${i}` }] } }));
const file = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n') + '\n'), 'batch.jsonl'), purpose: 'batch' });
await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

const login = (await (await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) })).json()) as { token: string; expires_at: number };
await fetch(`${gw.url}/v1/media/generations`, { method: 'POST', headers: { authorization: `Bearer ${login.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ media_type: 'video', model: 'some/video-model', prompt: 'a cat surfing a wave', parameters: { duration: 8 } }) });

const browser = await launchChromium();
const signedIn = async (page: Page) => {
  await page.goto(`${gw.url}/__blank`);
  await page.evaluate(({ token, expires }) => {
    localStorage.setItem('gateway.session', token);
    localStorage.setItem('gateway.sessionExpiresAt', String(expires));
  }, { token: login.token, expires: login.expires_at });
};

const page = await browser.context.newPage();
await page.goto(gw.url);
await page.screenshot({ path: path.join(OUT, 'sign-in.png') });
await signedIn(page);
const shots: Array<[string, string, (p: Page) => Promise<void>]> = [
  ['overview', '/', (p) => p.getByTestId('balance').waitFor()],
  ['keys', '/keys', (p) => p.locator('tbody tr').nth(1).waitFor()],
  ['usage', '/usage', (p) => p.getByTestId('requests').locator('tbody tr').first().waitFor()],
  ['media', '/media', (p) => p.getByRole('img', { name: /lighthouse/ }).waitFor()],
  ['batches', '/batches', (p) => p.getByTestId('batch-status').first().waitFor()],
  ['models', '/models', (p) => p.getByRole('cell', { name: /mock\/echo/ }).first().waitFor()],
];
for (const [name, url, ready] of shots) {
  await page.goto(`${gw.url}${url}`);
  await ready(page).catch(async (e: unknown) => {
    await page.screenshot({ path: `/tmp/failed-${name}.png` });
    throw e;
  });
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: name !== 'usage' });
}
await page.goto(`${gw.url}/playground`);
await page.getByLabel('API key the playground calls with').fill(key);
await page.getByLabel('Format').selectOption('messages');
await page.getByLabel('Message', { exact: true }).fill('Hello from the playground, converted from Messages to Chat.');
await page.getByRole('button', { name: 'Send' }).click();
await page.getByTestId('answer-meta').getByText('Cost').waitFor();
await page.screenshot({ path: path.join(OUT, 'playground.png'), fullPage: true });
const server = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8'))) as { adminToken: string };
for (let i = 0; i < 3; i++) {
  await client.chat.completions.create({ model: 'flaky/echo', messages: [{ role: 'user', content: `fallback ${i}` }], models: ['mock/echo'] } as never);
}
await page.goto(`${gw.url}/operator#admin=${server.adminToken}`);
await page.getByTestId('rps').waitFor();
await page.getByRole('table', { name: 'Fallbacks' }).getByRole('row').nth(1).waitFor();
await page.screenshot({ path: path.join(OUT, 'operator.png'), fullPage: true });
await page.setViewportSize({ width: 375, height: 812 });
await page.emulateMedia({ colorScheme: 'dark' });
await page.goto(`${gw.url}/media`);
await page.getByRole('img', { name: /lighthouse/ }).waitFor();
await page.screenshot({ path: path.join(OUT, 'media-375-dark.png') });

// Time to interactive, cold: a new context per load (no cache), the session already stored.
const tti: number[] = [];
for (let i = 0; i < 7; i++) {
  const context = await browser.context.browser()?.newContext();
  const fresh = context ? await context.newPage() : await browser.context.newPage();
  await fresh.goto(`${gw.url}/__blank`);
  await fresh.evaluate((token) => localStorage.setItem('gateway.session', token), login.token);
  await fresh.goto(gw.url);
  await fresh.getByTestId('balance').waitFor();
  tti.push(await fresh.evaluate(() => performance.now()));
  await (context ? context.close() : fresh.close());
}
tti.sort((a, b) => a - b);
console.log(`time to interactive (navigation start → balance drawn from /api/trpc, cold cache): median ${tti[3].toFixed(0)} ms, min ${tti[0].toFixed(0)} ms, max ${tti[6].toFixed(0)} ms`);
await browser.close();
await gw.stop();
