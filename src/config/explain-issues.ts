import type { z } from 'zod';
import { formatPath, type Issue } from '../util/index.ts';
import { describeUnknownKey } from './suggest-key.ts';

/** What zod reports for a key a strict object does not know. */
interface UnknownKeysIssue extends Issue {
  code: 'unrecognized_keys';
  keys: string[];
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  element?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** The schemas reached by following `path` into `schema` (several through a union). */
function schemasAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): z.ZodType[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return schemasAt(def.innerType!, path);
    case 'pipe':
      return schemasAt(def.in!, path);
    case 'lazy':
      return schemasAt(def.getter!(), path);
    case 'union':
      return def.options!.flatMap((option) => schemasAt(option, path));
  }
  if (path.length === 0) return [schema];
  const [head, ...rest] = path;
  if (def.type === 'object') {
    const child = def.shape?.[String(head)];
    return child ? schemasAt(child, rest) : [];
  }
  if (def.type === 'record') return schemasAt(def.valueType!, rest);
  if (def.type === 'array') return schemasAt(def.element!, rest);
  return [];
}

/** The keys an object schema at `path` knows (empty when there is none). */
export function knownKeysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  const keys = new Set<string>();
  for (const found of schemasAt(schema, path)) {
    const def = defOf(found);
    if (def.type === 'object') for (const key of Object.keys(def.shape ?? {})) keys.add(key);
  }
  return [...keys];
}

function isUnknownKeys(issue: Issue): issue is UnknownKeysIssue {
  return (issue as UnknownKeysIssue).code === 'unrecognized_keys' && Array.isArray((issue as UnknownKeysIssue).keys);
}

/**
 * One line for a failed config: unknown keys first (a typo is the likeliest cause of the rest),
 * each with a "did you mean"; otherwise the first problem as `field: message`.
 */
export function explainConfigIssues(schema: z.ZodType, found: readonly Issue[], prefix: ReadonlyArray<PropertyKey> = []): string {
  const issues = found.map(closestIssue);
  const unknown = issues.filter(isUnknownKeys);
  if (unknown.length > 0) {
    return unknown
      .flatMap((issue) => {
        const known = knownKeysAt(schema, issue.path);
        const at = formatPath([...prefix, ...issue.path]);
        return issue.keys.map((key) => describeUnknownKey(at, key, known));
      })
      .join('; ');
  }
  const issue = issues[0];
  const field = formatPath([...prefix, ...issue.path]);
  const message = isMissing(issue) ? `${issue.message} (nothing was given: if the config reads it from an environment variable, that variable is not set)` : issue.message;
  return field ? `${field}: ${message}` : message;
}

/**
 * A union's own issue says only "Invalid input" (a model entry is an id or an object): the
 * branch the value came closest to, its issue deepest in the value, says what is wrong
 * (`models[0].pricing.input: … expected number`, not `models[0]: Invalid input`).
 */
function closestIssue(issue: Issue): Issue {
  const { code, errors } = issue as { code?: unknown; errors?: unknown };
  if (code !== 'invalid_union' || !Array.isArray(errors)) return issue;
  let closest: Issue | undefined;
  for (const branch of errors as Issue[][]) for (const inner of branch) if (!closest || inner.path.length > closest.path.length) closest = inner;
  return closest ? closestIssue({ ...closest, path: [...issue.path, ...closest.path] }) : issue;
}

/** A required value that is undefined: in a config file that is most often an unset environment variable. */
function isMissing(issue: Issue): boolean {
  return (issue as { code?: unknown }).code === 'invalid_type' && /received undefined$/.test(issue.message);
}
