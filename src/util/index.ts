export { randomToken, generateApiKey, generateSessionToken, sha256, maskKey, hashPassword, verifyPassword, newId } from './secrets.ts';
export { systemClock, createClock, unixSeconds, type Clock } from './clock.ts';
export { FastAbortController, onAbort, watchOf, attachAbortWatch, abortWatchOf, type AbortWatch, type AbortSource } from './abort.ts';
export { formatIssues, formatPath, issuesOf, readableMessage, type Issue } from './format-issues.ts';
export { ExitError } from './exit-error.ts';
export { quotedFinder } from './find-quoted.ts';
export { rememberSecret, rememberSecretHeader, isRememberedSecret, hasSecrets, redactSecrets, containsSecret, forgetSecrets, REDACTED } from './redact-secrets.ts';
export { createTurns } from './in-turn.ts';
export { patchJsonFields } from './patch-json-fields.ts';
