/** A validation issue as zod (and tRPC's input errors) report it. */
export interface Issue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
}

/** `a.b[0].c`: a field path as a user would write it. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/** One human line per issue, joined: `email: Invalid email address; tier: Invalid option…`. */
export function formatIssues(issues: ReadonlyArray<Issue>): string {
  return issues.map((issue) => (issue.path.length > 0 ? `${formatPath(issue.path)}: ${issue.message}` : issue.message)).join('; ');
}

/** The issues of a zod error (or anything shaped like one), else undefined. */
export function issuesOf(value: unknown): Issue[] | undefined {
  const issues = (value as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  return issues.every((i) => Array.isArray((i as Issue)?.path) && typeof (i as Issue)?.message === 'string') ? (issues as Issue[]) : undefined;
}

/**
 * A message that is a JSON list of issues (what a ZodError's `message` is) made readable;
 * any other message is returned unchanged.
 */
export function readableMessage(message: string): string {
  if (!message.startsWith('[')) return message;
  try {
    const issues = issuesOf({ issues: JSON.parse(message) });
    return issues ? formatIssues(issues) : message;
  } catch {
    return message;
  }
}
