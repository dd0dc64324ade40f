import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsdown';

/** zod (94 ES modules, a sixth of a CLI command's start when Node reads them one by one). */
const ZOD = /^zod(\/|$)/;

/**
 * One build, so the CLI, the library entries and the built-in plugins share their chunks: a
 * plugin's `GatewayError` is the class the core checks for. Dependencies stay external except
 * tRPC, which is bundled so an install does not pull the TypeScript compiler it lists as a peer,
 * and zod's code (one chunk instead of 94 modules; docs/packaging.md): the declarations still
 * import zod's types from the package, so the published .d.mts files are the same.
 */
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'plugin-kit': 'src/plugin-kit/index.ts',
    // The provider conformance suite third-party plugin authors run (gateway/plugin-kit/testing).
    'plugin-kit-testing': 'src/plugin-kit/testing.ts',
    cli: 'src/cli/main.ts',
  },
  outDir: 'dist',
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  dts: true,
  clean: true,
  deps: {
    onlyBundle: [/^@trpc\//, ZOD],
    // The JavaScript only: an import from a declaration file (the dts pass) stays external.
    alwaysBundle: (id, importer) => ZOD.test(id) && !/\.d\.[cm]?ts$/.test(importer ?? ''),
  },
  checks: { pluginTimings: false },
  alias: {
    // First-party plugins import the public kit as third-party ones do; in the build that is the core's own.
    'gateway/plugin-kit': fileURLToPath(new URL('./src/plugin-kit/index.ts', import.meta.url)),
  },
});
