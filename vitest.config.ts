import { availableParallelism } from 'node:os';
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
    // No test asks the EC2 instance metadata service for AWS keys (the AWS default chain would,
    // for a bedrock provider without keys): gateways spawned with the environment inherit it.
    env: { AWS_EC2_METADATA_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one fork fewer than the cores: one fork on CI's two cores, where the e2e
    // files spend most of their time waiting on the gateways they spawn. Two forks there take the
    // whole run from ~19 minutes to ~10.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
