import fs from 'node:fs';
import path from 'node:path';
import { execa, execaNode } from 'execa';

/**
 * The e2e tests spawn bin/gateway, which runs the compiled dist/ as users do: build it first
 * when the sources changed since the last build (a no-op otherwise). The browser tests' own
 * folder (Playwright, axe-core; its own lock file, never root devDependencies) is installed here
 * when missing, so `npm test` on a fresh clone needs no other step (the coding-agent clients are
 * installed by their tests' beforeAll, the same way).
 */
export default async function setup(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  await execaNode(path.join(root, 'scripts/build.mjs'), ['--if-stale'], { cwd: root, stdio: 'inherit' });
  const browser = path.join(root, 'test/browser');
  const installed = ['playwright-core', 'axe-core'].every((name) => fs.existsSync(path.join(browser, 'node_modules', name)));
  if (!installed) await execa('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: browser, stdio: 'inherit' });
}
