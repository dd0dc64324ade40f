import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'gateway/plugin-kit/testing': fileURLToPath(new URL('./src/plugin-kit/testing.ts', import.meta.url)),
      'gateway/plugin-kit': fileURLToPath(new URL('./src/plugin-kit/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
