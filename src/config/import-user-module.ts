import type { Jiti } from 'jiti';

let jiti: Promise<Jiti> | undefined;

/**
 * A jiti instance whose `gateway` and `gateway/plugin-kit` are this running gateway's own
 * modules, not a copy resolved from the user's folder: a config or plugin then loads from any
 * directory and any project type (ESM or CommonJS, with or without gateway installed beside
 * it), and the errors and bodies a plugin hands back are the classes the core checks for.
 */
function userModuleLoader(): Promise<Jiti> {
  jiti ??= (async () => {
    // jiti (~80 ms to load) only when a config or plugin is a JS/TS file: a JSON config, the
    // built-in defaults and the built-in plugins start without it.
    const [{ createJiti }, pluginKit, { defineConfig }] = await Promise.all([import('jiti'), import('../plugin-kit/index.ts'), import('./define-config.ts')]);
    return createJiti(import.meta.url, {
      interopDefault: true,
      moduleCache: false,
      virtualModules: {
        gateway: { ...pluginKit, defineConfig },
        'gateway/plugin-kit': { ...pluginKit },
      },
    });
  })();
  return jiti;
}

/** Imports a user's config or plugin file (TypeScript or JavaScript, ESM or CommonJS). */
export async function importUserModule(file: string): Promise<Record<string, unknown>> {
  return (await (await userModuleLoader()).import(file)) as Record<string, unknown>;
}

/** A user module's default export (or the module itself when it has none). */
export async function importUserDefault(file: string): Promise<unknown> {
  return (await userModuleLoader()).import(file, { default: true });
}
