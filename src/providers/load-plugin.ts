import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { ProviderPlugin } from '../plugin-kit/types.ts';

/** A provider whose plugin could not be found, loaded or validated. */
export class PluginLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginLoadError';
  }
}

/** The folder of built-in plugins (`plugins/` at the package root). */
export const BUILTIN_PLUGIN_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url));

const pluginShape = z.object({
  name: z.string().min(1),
  formats: z.array(z.enum(['chat', 'responses', 'messages'])),
  models: z.array(z.object({ id: z.string().min(1) }).loose()).optional(),
  catalog: z
    .object({ provider: z.string().min(1).optional(), models: z.array(z.object({ id: z.string().min(1) }).loose()).optional() })
    .loose()
    .optional(),
  options: z.object({ parse: z.function() }).loose().optional(),
  setup: z.function(),
});

/** Where a `plugin` spec points: a built-in folder, a path (relative to the config file) or an npm package. */
export function resolvePluginSpecifier(spec: string, baseDir: string): string {
  const builtin = path.join(BUILTIN_PLUGIN_DIR, spec, 'index.ts');
  if (/^[a-z0-9-]+$/.test(spec) && fs.existsSync(builtin)) return pathToFileURL(builtin).href;
  if (spec.startsWith('.') || path.isAbsolute(spec)) return pathToFileURL(path.resolve(baseDir, spec)).href;
  const require = createRequire(path.join(baseDir, 'noop.js'));
  return pathToFileURL(require.resolve(spec)).href;
}

/** Imports and validates one provider plugin; errors name the provider and the plugin. */
export async function loadPlugin(providerId: string, spec: string, baseDir: string): Promise<ProviderPlugin<unknown>> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(resolvePluginSpecifier(spec, baseDir))) as Record<string, unknown>;
  } catch (error) {
    throw new PluginLoadError(`provider '${providerId}': cannot load plugin '${spec}': ${(error as Error).message.split('\n')[0]}`);
  }
  const candidate = mod.default ?? mod.plugin;
  const parsed = pluginShape.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PluginLoadError(
      `provider '${providerId}': plugin '${spec}' is not a valid provider plugin (${issue.path.join('.') || 'default export'}: ${issue.message}); export default definePlugin({...})`,
    );
  }
  return candidate as ProviderPlugin<unknown>;
}
