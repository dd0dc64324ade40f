import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const resolve = {
  alias: {
    'gateway/plugin-kit/testing': fileURLToPath(new URL('./src/plugin-kit/testing.ts', import.meta.url)),
    'gateway/plugin-kit': fileURLToPath(new URL('./src/plugin-kit/index.ts', import.meta.url)),
  },
};

/** What both projects below share (each names its own files; the root's global setup runs once). */
const shared = {
  // No test asks the EC2 instance metadata service for AWS keys (the AWS default chain would,
  // for a bedrock provider without keys): gateways spawned with the environment inherit it.
  env: { AWS_EC2_METADATA_DISABLED: 'true' },
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
} as const;

const ALL = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

/**
 * Files that run in a fresh process each (vitest's default isolation): the e2e and browser tests
 * (they spawn gateways, browsers and CLIs, and some set process.exitCode or globals), the TUI
 * tests that delete CI before Ink loads (Ink reads it once, on import), heap-growth, which sets
 * V8's heap growth for the process it runs in, the two that bound how fast the event loop keeps
 * up (in a fork that ran 100 files before, settlement-outbox failed 2 runs in 5; alone 8 of 8
 * passed at the same load), and the other files that spawn the CLI or a gateway (their time is
 * the children's, not imports; in a loaded shared fork tui-command's gateway did not start in 20 s),
 * gemini-batch-results-size, which holds a few GB of batch results, and message-batch-results-bounded,
 * which measures its own memory.
 */
const ISOLATED = [
  'test/e2e/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/tui/run-tui.test.tsx',
  'test/tui/overview-live.test.tsx',
  'test/app/heap-growth.test.ts',
  'test/store/file/settlement-outbox.test.ts',
  'test/limits/redis-rate-limit-store.test.ts',
  'test/tui/tui-command.test.ts',
  'test/cli/list-width.test.ts',
  'test/billing/balance-bounds.test.ts',
  'test/billing/ledger-group-commit.test.ts',
  'test/server/routes/gemini-batch-results-size.test.ts',
  'test/server/routes/message-batch-results-bounded.test.ts',
];

export default defineConfig({
  resolve,
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Vitest's default is one fork fewer than the cores: one fork on CI's two cores, where the e2e
    // files spend most of their time waiting on the gateways they spawn. Two forks there take the
    // whole run from ~19 minutes to ~10.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // The in-process tests share a fork's loaded modules (isolate: false): a fresh process per
      // file spent ~0.7 s importing src/ again for tests that take 30 ms, more than half of these
      // files' wall time. Each still starts as in a fresh process: test/helpers/shared-process-guard.ts
      // removes the wire formats a file registered and the credentials remembered for redaction,
      // and fails a file that leaves the environment changed; spies are restored by the tests
      // that make them, and no test uses vi.mock.
      { resolve, test: { ...shared, name: 'unit', include: ALL, exclude: [...configDefaults.exclude, ...ISOLATED], isolate: false, setupFiles: ['test/helpers/shared-process-guard.ts'] } },
      { resolve, test: { ...shared, name: 'isolated', include: ISOLATED } },
    ],
  },
});
