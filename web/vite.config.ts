import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard's build (scripts/build.mjs runs it after the server's): plain Vite with React's
 * automatic JSX runtime, hashed file names under /assets/, no inline script (the CSP forbids it).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Nothing inlined as data: URLs and no polyfill script: the page's CSP allows only files from /assets/.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
