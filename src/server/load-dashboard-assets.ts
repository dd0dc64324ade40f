import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** One built file of the dashboard, held in memory with its gzipped form. */
export interface DashboardAsset {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
}

/** The built dashboard: `index.html` and the hashed files under `/assets/`. */
export interface DashboardAssets {
  index: string;
  /** By URL path (`/assets/index-3f2a.js`). */
  files: Map<string, DashboardAsset>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Where the build put the dashboard (`dist/dashboard`): beside the running bundle in `dist/`,
 * or two folders up when the sources run directly (tests, tsx).
 */
export function findDashboardDir(from = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = from;
  for (let i = 0; i < 4; i++) {
    for (const candidate of [path.join(dir, 'dashboard'), path.join(dir, 'dist', 'dashboard')]) {
      if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
    }
    dir = path.dirname(dir);
  }
  return undefined;
}

/** Reads the built dashboard once, at startup (a few hundred KB); undefined when it was not built. */
export function loadDashboardAssets(dir = findDashboardDir()): DashboardAssets | undefined {
  if (!dir) return undefined;
  const cached = loaded.get(dir);
  if (cached) return cached;
  const files = new Map<string, DashboardAsset>();
  const assetsDir = path.join(dir, 'assets');
  for (const name of fs.existsSync(assetsDir) ? fs.readdirSync(assetsDir) : []) {
    const body = fs.readFileSync(path.join(assetsDir, name));
    const type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    // Text compresses; images are compressed already.
    const gzip = /^(text|application\/json|image\/svg)/.test(type) ? gzipSync(body, { level: 9 }) : undefined;
    files.set(`/assets/${name}`, { body, gzip, type });
  }
  const assets = { index: fs.readFileSync(path.join(dir, 'index.html'), 'utf8'), files };
  loaded.set(dir, assets);
  return assets;
}

/** One read per build folder and process: every app a process composes (tests make many) shares it. */
const loaded = new Map<string, DashboardAssets>();
