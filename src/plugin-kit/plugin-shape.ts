import { z } from 'zod';
import { MODEL_TYPES } from '../ir/index.ts';

/** A model the plugin lists: a type the gateway does not know would be served by no route (every request a 400), so it is refused. */
const modelShape = z.object({ id: z.string().min(1), type: z.enum(MODEL_TYPES).optional() }).loose();

/** The shape the host loads a plugin object by: the gateway at start-up and the provider conformance suite check the same. */
const pluginShape = z.object({
  name: z.string().min(1),
  formats: z.array(z.string().min(1)),
  supportedFormats: z.array(z.string().min(1)).optional(),
  wireFormats: z.array(z.object({ id: z.string().min(1) }).loose()).optional(),
  models: z.array(modelShape).optional(),
  maxRequestBytes: z.number().int().positive().optional(),
  catalog: z
    .object({ provider: z.string().min(1).optional(), models: z.array(modelShape).optional() })
    .loose()
    .optional(),
  options: z.object({ parse: z.function() }).loose().optional(),
  setup: z.function(),
});

/** The keys a plugin object is read by: another key that is a typo of one (`format`, `model`) would leave it unread. */
export const PLUGIN_KEYS: readonly string[] = Object.keys(pluginShape.shape);

/** What is wrong with a plugin object's shape: where (a dotted path, '' for the object) and what. */
export interface PluginShapeProblem {
  path: string;
  message: string;
}

/** The first problem with `candidate` as a provider plugin, or undefined when the host can load it. */
export function pluginShapeProblem(candidate: unknown): PluginShapeProblem | undefined {
  const parsed = pluginShape.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.join('.');
    // zod's words for a missing function ("expected function, received undefined") do not say what setup is for.
    if (path === 'setup') return { path, message: `${typeof (candidate as { setup?: unknown }).setup === 'undefined' ? 'missing' : 'not a function'}: a plugin needs setup(ctx), which returns its instance ({ chat, close })` };
    return { path, message: issue.message };
  }
  const { formats, supportedFormats } = parsed.data;
  const outside = supportedFormats && formats.find((format) => !supportedFormats.includes(format));
  if (outside !== undefined) return { path: 'formats', message: `names '${outside}', which supportedFormats leaves out: add it to supportedFormats, or take it out of formats` };
  return undefined;
}

/** A shape problem in the words the host and the conformance suite both say; the definePlugin hint only when the export is no plugin object at all. */
export function describeShapeProblem(problem: PluginShapeProblem): string {
  return problem.path ? `(${problem.path}: ${problem.message})` : `(default export: ${problem.message}); export default definePlugin({...})`;
}
