/**
 * What the dashboard shows reads the same wherever the browser is: a key's expiry (a day the gateway
 * reads as midnight UTC) in UTC, said so, never the browser's local time (in Los Angeles,
 * 2031-01-31 was "1/30/2031, 4:00:00 PM"); and the Usage table's endpoint as the path a client calls,
 * not the gateway's route pattern (`/v1beta/models/**`, `/model/:modelId/converse`).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { launchChromium } from './launch-chromium.ts';

const EMAIL = 'lin@example.test';
const PASSWORD = 'correct horse battery';

describe('the dashboard in Chromium in Los Angeles: dates and endpoints anyone reads alike', () => {
  const dir = tempDir('gw-browser-');
  const dataDir = path.join(dir, 'data');
  let configFile: string;
  let gw: SpawnedGateway;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  const cli = (...args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);

  beforeAll(async () => {
    configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    gw = await spawnGateway({ configFile, dataDir });
    expect((await cli('accounts', 'create', '--email', EMAIL, '--password', PASSWORD, '--credits', '1000')).exitCode).toBe(0);
    const made = await cli('keys', 'create', '--account', EMAIL, '--name', 'expiring', '--expires', '2031-01-31', '--json');
    const key = (JSON.parse(String(made.stdout)) as { key: string }).key;
    // A Gemini client's call: the ledger names its route pattern.
    const answer = await fetch(`${gw.url}/v1beta/models/mock/echo:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect(answer.status, await answer.clone().text()).toBe(200);
    browser = await launchChromium({ timezoneId: 'America/Los_Angeles' });
    page = await browser.context.newPage();
    await page.goto(gw.url);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  });

  const go = async (link: string, heading: string) => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  it("a key's expiry is the day it was given, in UTC, said so", async () => {
    await go('API keys', 'API keys');
    const row = page.locator('tr', { hasText: 'expiring' });
    await row.waitFor();
    expect(await row.textContent()).toContain('2031-01-31 00:00 UTC');
  });

  it("the Usage table's endpoint is the path the client called, the route pattern in its title", async () => {
    await go('Usage', 'Usage');
    const cell = page.getByTestId('requests').locator('tbody tr').first().locator('td').nth(3);
    await cell.waitFor();
    expect(await cell.textContent()).toBe('/v1beta/models/{model}:…');
    expect(await cell.getAttribute('title')).toBe('/v1beta/models/**');
  });
});
