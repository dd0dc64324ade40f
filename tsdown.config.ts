import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsdown';
import type { Plugin } from 'rolldown';

/** zod (94 ES modules, a sixth of a CLI command's start when Node reads them one by one). */
const ZOD = /^zod(\/|$)/;

/**
 * Escapes the non-ASCII characters left in each JavaScript chunk (after comments are dropped, only
 * in string, template and regular expression literals, where `\uXXXX` means the same: src/ has
 * no tagged template, whose raw text would change) so V8 stores the source at one byte a character.
 * The declarations (.d.mts) keep their text for the reader.
 */
function asciiOnly(): Plugin {
  return {
    name: 'gateway:ascii-only',
    // After the chunks are printed (their printing would turn escapes back into characters).
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.fileName.endsWith('.mjs') || !/[^\x00-\x7f]/.test(chunk.code)) continue;
        const code = chunk.code;
        chunk.code = code.replace(/[^\x00-\x7f]/gu, (char: string, offset: number) => {
          if (code[offset - 1] === '\\') throw new Error(`${chunk.fileName}: a backslash before '${char}' at ${offset}: escaping it would change its meaning`);
          let escaped = '';
          for (let i = 0; i < char.length; i += 1) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
          return escaped;
        });
      }
    },
  };
}

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
  // What Node keeps in memory as each module's source (V8 holds it for lazy compilation): no
  // comments (the declarations keep theirs), and ASCII only, as a source with one non-ASCII
  // character is held at two bytes a character. docs/packaging.md.
  outputOptions: { comments: false },
  plugins: [asciiOnly()],
  alias: {
    // First-party plugins import the public kit as third-party ones do; in the build that is the core's own.
    'gateway/plugin-kit': fileURLToPath(new URL('./src/plugin-kit/index.ts', import.meta.url)),
  },
});
