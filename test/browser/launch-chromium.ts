import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

const HERE = import.meta.dirname;

/** Debian's chromium (`apt-get install -y chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.GATEWAY_TEST_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Installs this folder's pinned tools (playwright-core, axe-core) once; a no-op when they are there. */
export function ensureBrowserTools(): void {
  if (fs.existsSync(path.join(HERE, 'node_modules', 'playwright-core', 'package.json')) && fs.existsSync(path.join(HERE, 'node_modules', 'axe-core', 'axe.min.js'))) return;
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: HERE, stdio: 'inherit' });
}

/** A browser with a fresh profile, as a first-time visitor has (in `timezoneId`, when given); closes and removes it with `close`. */
export async function launchChromium(options: { timezoneId?: string } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  ensureBrowserTools();
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium (.ci/run does it)`);
  // Required from this folder's own node_modules (not the root's): the pinned version.
  const { chromium } = createRequire(path.join(HERE, 'package.json'))('playwright-core') as typeof import('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 }, ...options });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** axe-core's serious and critical violations on the page as it is now (ids and where). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const source = fs.readFileSync(path.join(HERE, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (a <script> would be refused).
  await page.evaluate(source);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as { violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
