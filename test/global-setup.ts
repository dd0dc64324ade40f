import path from 'node:path';
import { execaNode } from 'execa';

/**
 * The e2e tests spawn bin/gateway, which runs the compiled dist/ as users do: build it first
 * when the sources changed since the last build (a no-op otherwise).
 */
export default async function setup(): Promise<void> {
  const root = path.resolve(import.meta.dirname, '..');
  await execaNode(path.join(root, 'scripts/build.mjs'), ['--if-stale'], { cwd: root, stdio: 'inherit' });
}
