import { z } from 'zod';
import { TIERS } from '../ir/index.ts';
import { keyEndpoints, SPEND_LIMIT_RESETS } from '../accounts/index.ts';
import { balanceSchema, creditDeltaSchema } from '../billing/index.ts';
import { suggestKey } from '../config/index.ts';

/**
 * The inputs of the account and key procedures. One schema per procedure, used by the
 * procedure itself and by every caller that validates before sending (the CLI's flags, the
 * TUI's dialogs), so all of them accept and refuse the same values with the same words.
 */

export { TIERS };
export { keyEndpoints, SPEND_LIMIT_RESETS };

export const tierSchema = z.enum(TIERS, { error: `must be one of ${TIERS.join(', ')}` });

/** Credits as a limit or cap: 0 (nothing may be spent) up to a trillion. */
const creditAmount = z
  .number({ error: 'must be a number of credits' })
  .nonnegative({ error: 'must not be negative' })
  .max(1e12, { error: 'must be at most 1e12 credits' });

/** Credits granted at account creation: a balance, 0 up to MAX_BALANCE (docs/billing.md). */
const startingCredits = balanceSchema;

const rpm = z.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).positive({ error: 'must be positive' }).max(1_000_000, { error: 'must be at most 1000000' });

const quota = z.number({ error: 'must be a whole number of tokens' }).int({ error: 'must be a whole number of tokens' }).nonnegative({ error: 'must not be negative' }).max(1e15, { error: 'must be at most 1e15' });

/** A model id or glob (`openai/*`, `claude-*`): the characters model ids use, plus `*` and `?`. */
export const modelPatternSchema = z
  .string()
  .trim()
  .min(1, { error: 'a model pattern must not be empty' })
  .max(200, { error: 'a model pattern must be at most 200 characters' })
  .regex(/^[A-Za-z0-9._:@/*?+-]+$/, { error: 'a model id or glob may contain letters, digits, . _ : @ / + - and the wildcards * ?' });

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An expiry: an ISO date (`2027-01-31`, UTC midnight) or date-time. */
export const expirySchema = z
  .string()
  .trim()
  .refine((s) => ISO_DATE.test(s) && !Number.isNaN(Date.parse(s)), { error: 'must be an ISO date such as 2027-01-31 or 2027-01-31T12:00:00Z' });

const keyName = z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' });

export const passwordSchema = z.string().min(8, { error: 'must be at least 8 characters' }).max(1024, { error: 'must be at most 1024 characters' });

const email = z.string().trim().min(1).max(320);

/** `'video' is not an endpoint (did you mean 'videos'?); an endpoint is one of …`: the value refused first, as a list can hide a typo. */
function notAnEndpoint(value: string): string {
  // A long value (the dashboard's procedures take any string) is neither a typo nor worth repeating whole.
  const long = value.length > 40;
  const near = long ? undefined : suggestKey(value, keyEndpoints());
  return `'${long ? `${value.slice(0, 40)}…` : value}' is not an endpoint${near ? ` (did you mean '${near}'?)` : ''}; an endpoint is one of ${keyEndpoints().join(', ')}`;
}

/** What can be set on a key, at creation or later. null clears a setting (no limit, every model…). */
const keySettings = {
  name: keyName.optional(),
  rpm: rpm.nullable().optional(),
  expires: expirySchema.nullable().optional(),
  models: z.array(modelPatternSchema).min(1, { error: 'name at least one model (or all)' }).max(64, { error: 'at most 64 model patterns' }).nullable().optional(),
  endpoints: z
    // Read when a value is checked, not at load: a plugin's wire format is an endpoint group too.
    .array(z.string({ error: () => `an endpoint is one of ${keyEndpoints().join(', ')}` }).refine((e) => keyEndpoints().includes(e), { error: (issue) => notAnEndpoint(String(issue.input)) }))
    .min(1, { error: 'name at least one endpoint (or all)' })
    .nullable()
    .optional(),
  limit: creditAmount.nullable().optional(),
  limitReset: z.enum(SPEND_LIMIT_RESETS, { error: `must be one of ${SPEND_LIMIT_RESETS.join(', ')} (or none)` }).nullable().optional(),
};

export const createKeyInput = z.strictObject({ account: email.optional(), ...keySettings });

function changesSomething(input: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.some((k) => input[k] !== undefined);
}

const KEY_FIELDS = Object.keys(keySettings);

export const setKeyInput = z
  .strictObject({ id: z.string().trim().min(1).max(64), ...keySettings })
  .refine((input) => changesSomething(input, KEY_FIELDS), { error: 'Nothing to change: give --name, --rpm, --expires, --models, --endpoints, --limit or --limit-reset.' });

/**
 * What an account sets on its own keys (the dashboard): everything but the RPM. A key's RPM comes
 * before the tier's (spec §8.1 row 1) and counts per key, so an owner who set it would leave the
 * tier's limit behind; it is the operator's (the admin procedures).
 */
const { rpm: _operatorOnly, ...ownKeySettings } = keySettings;
const OWN_KEY_FIELDS = Object.keys(ownKeySettings);

export const createOwnKeyInput = z.strictObject(ownKeySettings);

export const setOwnKeyInput = z
  .strictObject({ id: z.string().trim().min(1).max(64), ...ownKeySettings })
  .refine((input) => changesSomething(input, OWN_KEY_FIELDS), { error: 'Nothing to change: give a name, expiry, models, endpoints, limit or limit reset.' });

/** What can be set on an account besides its balance. */
const accountSettings = {
  tier: tierSchema.optional(),
  quota: quota.nullable().optional(),
  rpm: rpm.nullable().optional(),
  suspended: z.boolean().optional(),
  spendCap: creditAmount.nullable().optional(),
  password: passwordSchema.nullable().optional(),
};

const ACCOUNT_FIELDS = Object.keys(accountSettings);

export const createAccountInput = z.strictObject({
  // What a browser's email field takes (WHATWG's rule): a host without a dot too, as the first-run local@localhost.
  email: z.email({ pattern: z.regexes.html5Email, error: 'must be an email address' }).max(320),
  password: passwordSchema.optional(),
  tier: tierSchema.optional(),
  credits: startingCredits.optional(),
  quota: quota.nullable().optional(),
  spendCap: creditAmount.nullable().optional(),
});

export const setAccountInput = z
  .strictObject({ email, ...accountSettings })
  .refine((input) => changesSomething(input, ACCOUNT_FIELDS), { error: 'Nothing to change: give --tier, --quota, --rpm, --spend-cap, --password/--no-password or --suspended/--no-suspended.' });

/** `billing.addCredits`: credits to add to (negative: take from) an account's balance. */
export const addCreditsInput = z.strictObject({ email, add: creditDeltaSchema });

export type CreateKeyInput = z.input<typeof createKeyInput>;
export type SetKeyInput = z.input<typeof setKeyInput>;
export type CreateAccountInput = z.input<typeof createAccountInput>;
export type SetAccountInput = z.input<typeof setAccountInput>;
export type AddCreditsInput = z.input<typeof addCreditsInput>;

/** Every problem of a failed parse on one line, each naming its field as a CLI flag (`--email: …; --password: …`). */
export function describeIssue(error: z.ZodError): string {
  if (error.issues.length === 0) return 'invalid input';
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const issue of error.issues) {
    const field = issue.path.find((p) => typeof p === 'string');
    const text = field ? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${issue.message}` : issue.message;
    if (!seen.has(text)) parts.push(text);
    seen.add(text);
  }
  return parts.join('; ');
}
