#!/usr/bin/env node
// Builds dist/ with tsdown (see tsdown.config.ts) and the web dashboard with Vite (web/vite.config.ts). With --if-stale it does nothing when dist/
// was built from the same sources: `npm start` and the test suite's global setup call it that
// way, so what they run is never older than src/. A lock keeps two callers from building at once.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const dist = path.join(root, 'dist');
const stampFile = path.join(dist, '.build-stamp');
const lockFile = path.join(root, '.dist-build.lock');
const INPUTS = ['src', 'plugins', 'web', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsdown.config.ts'];

/** A hash of every file the build reads from this repository. */
function hashInputs() {
  const hash = createHash('sha256');
  const visit = (file) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(file).sort()) visit(path.join(file, name));
      return;
    }
    hash.update(path.relative(root, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  };
  for (const input of INPUTS) visit(path.join(root, input));
  return hash.digest('hex');
}

const isFresh = (stamp) => fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp;

/** Takes the build lock, waiting for a live holder and taking over from a dead one. */
async function lock() {
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockFile, 'utf8'));
      if (!isAlive(holder)) fs.rmSync(lockFile, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

const ifStale = process.argv.includes('--if-stale');
const stamp = hashInputs();
if (!(ifStale && isFresh(stamp))) {
  await lock();
  try {
    // Someone else may have built it while we waited.
    if (!(ifStale && isFresh(hashInputs()))) {
      const { build } = await import('tsdown');
      await build({ config: path.join(root, 'tsdown.config.ts'), logLevel: ifStale ? 'warn' : 'info' });
      // The web dashboard (web/, React + Vite) into dist/dashboard/, after tsdown emptied dist/.
      // A production React whoever runs the build (the tests' global setup inherits NODE_ENV=test,
      // which would bundle React's development build, 1.8× the size).
      process.env.NODE_ENV = 'production';
      const vite = await import('vite');
      await vite.build({ configFile: path.join(root, 'web', 'vite.config.ts'), logLevel: ifStale ? 'warn' : 'info' });
      fs.writeFileSync(stampFile, stamp);
    }
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}
