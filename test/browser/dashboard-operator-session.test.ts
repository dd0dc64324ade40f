import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { launchChromium } from './launch-chromium.ts';

const EMAIL = 'grace@example.test';
const PASSWORD = 'correct horse battery';

describe('the dashboard in Chromium: operator views and an expiring session', () => {
  const dir = tempDir('gw-browser-op-');
  // Sessions last 3 s here, so one can be watched expiring.
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', latencyMs: 20 } }, dashboard: { sessionTtlSeconds: 3 } });
  const dataDir = path.join(dir, 'data');
  let gw: SpawnedGateway;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;

  beforeAll(async () => {
    gw = await spawnGateway({ configFile, dataDir });
    const created = await runCli(['--config', configFile, '--data-dir', dataDir, 'accounts', 'create', '--email', EMAIL, '--password', PASSWORD, '--credits', '100000', '--tier', 'enterprise']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('an operator sees the live request rate move while a load runs', async () => {
    const server = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')) as { adminToken: string };
    // The link `gateway dashboard` prints: the admin token in the fragment, never sent to the server.
    const printed = await runCli(['--config', configFile, '--data-dir', dataDir, 'dashboard']);
    const link = /(http:\/\/\S+\/operator#admin=gwa_\S+)/.exec(String(printed.stdout))?.[1];
    expect(link).toBe(`${gw.url}/operator#admin=${server.adminToken}`);
    await page.goto(link!);
    const rps = page.getByTestId('rps');
    await rps.waitFor();
    expect(page.url()).toBe(`${gw.url}/operator`);
    // The page's own loads are operator traffic, not counted; the rate is whatever it was before the load.
    const before = Number(await rps.textContent());
    // No client request yet: the top lists say so, as the open circuits do.
    expect(await page.locator('h2:text-is("Top models and providers") + *').textContent()).toBe('None.');

    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    let running = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (running) await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'load' }] });
      }),
    );
    try {
      await page.waitForFunction((floor) => Number(document.querySelector('[data-testid="rps"]')?.textContent) > floor + 1, before, { timeout: 20_000 });
      await page.getByRole('cell', { name: 'mock/echo' }).first().waitFor();
      await page.getByRole('list', { name: 'Top models' }).getByText('mock/echo').waitFor();
      await page.getByRole('list', { name: 'Top providers' }).getByText('mock', { exact: false }).waitFor();
    } finally {
      running = false;
      await load;
    }
    // Provider health from /health's provider_health: a row per provider with its state, not a JSON dump of ids.
    const health = page.getByRole('table', { name: 'Provider health' });
    const row = health.getByRole('row').filter({ has: page.getByRole('cell', { name: 'mock', exact: true }) });
    expect(await row.getByRole('cell').allTextContents()).toEqual(['mock', 'ok', expect.stringMatching(/^\d+$/), '—']);
  });

  it('a session that expires brings the sign-in form back over the page, and what was typed stays', async () => {
    await page.goto(gw.url);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('Message', { exact: true }).fill('a draft I do not want to lose');

    const again = page.getByRole('dialog').getByRole('heading', { name: 'Sign in again' });
    await again.waitFor({ timeout: 15_000 });
    // The server agrees: the old token is refused.
    const token = await page.evaluate(() => localStorage.getItem('gateway.session'));
    expect((await fetch(`${gw.url}/api/trpc/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Email').fill(EMAIL);
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await again.waitFor({ state: 'detached' });
    expect(await page.$eval('textarea', (el) => (el as HTMLTextAreaElement).value)).toBe('a draft I do not want to lose');
  });
});

describe('the dashboard in Chromium: the login limit', () => {
  let gw: SpawnedGateway;
  let browser: { context: BrowserContext; close(): Promise<void> };

  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { mock: { plugin: 'mock' } } } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('the sixth sign-in in a minute is a message with the wait, not an error page', async () => {
    const page = await browser.context.newPage();
    await page.goto(gw.url);
    await page.getByLabel('Email').fill('nobody@example.test');
    await page.getByLabel('Password').fill('not the password');
    for (let i = 0; i < 5; i++) {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
      await page.getByRole('button', { name: 'Sign in' }).and(page.locator(':enabled')).waitFor();
    }
    await page.getByRole('button', { name: 'Sign in' }).click();
    const notice = page.getByRole('alert').filter({ hasText: /Too many sign-in attempts \(5 a minute\)\. Try again in \d+ seconds\./ });
    await notice.waitFor();
    // Still the form, ready for the next try.
    await page.getByLabel('Email').waitFor();
  });
});

// Before, the operator page had no word of fallbacks: a request a fallback served looked like any other.
describe('the dashboard in Chromium: fallbacks on the operator page', () => {
  let gw: SpawnedGateway;
  let browser: { context: BrowserContext; close(): Promise<void> };

  beforeAll(async () => {
    gw = await spawnGateway({ config: { providers: { flaky: { plugin: 'mock', failFirst: 1_000_000 }, mock: { plugin: 'mock' } }, routing: { retry: { attempts: 1 } } } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('counts the requests a fallback served and names the model that failed and the one that served', async () => {
    const server = JSON.parse(fs.readFileSync(path.join(gw.dataDir, 'server.json'), 'utf8')) as { adminToken: string };
    const page = await browser.context.newPage();
    await page.goto(`${gw.url}/operator#admin=${server.adminToken}`);
    await page.getByTestId('fallbacks').waitFor();
    expect(await page.getByTestId('fallbacks').textContent()).toBe('0');
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    for (let i = 0; i < 3; i += 1) {
      const { response } = await client.chat.completions.create({ model: 'flaky/echo', messages: [{ role: 'user', content: 'hi' }], models: ['mock/echo'] } as never).withResponse();
      expect(response.headers.get('x-fallback-used')).toBe('true');
    }
    await page.waitForFunction(() => document.querySelector('[data-testid="fallbacks"]')?.textContent === '3', undefined, { timeout: 15_000 });
    const table = page.getByRole('table', { name: 'Fallbacks' });
    expect(await table.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['flaky/echo', 'mock/echo', '3']);
    await page.getByText('(fallback from flaky/echo)').first().waitFor();
  });
});
