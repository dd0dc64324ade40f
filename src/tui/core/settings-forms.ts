import { createAccountInput, setAccountInput, setKeyInput, SPEND_LIMIT_RESETS, TIERS, type CreateAccountInput, type SetAccountInput, type SetKeyInput } from '../../admin/index.ts';
import { listOrNull, numberOrNull, validateForm, type FormField } from './form.ts';
import type { AccountView, KeyView } from './types.ts';

/**
 * The Keys and Accounts dialogs as forms over the admin procedures' own schemas: the text an
 * operator typed becomes the procedure's input, is validated with the same rules as the CLI,
 * and only fields that changed are sent.
 */

type Result<T> = { ok: true; value: T } | { ok: false; error: string };

const NO_RESET = 'none';

export const KEY_FORM: readonly FormField[] = [
  { name: 'name', label: 'Name' },
  { name: 'rpm', label: 'RPM', hint: 'requests per minute; empty = from the account' },
  { name: 'expires', label: 'Expires', hint: 'ISO date, e.g. 2027-01-31; empty = never' },
  { name: 'models', label: 'Models', hint: 'ids or globs, comma-separated (mock/*, claude-*); empty = all' },
  { name: 'endpoints', label: 'Endpoints', hint: 'groups, comma-separated (chat, messages, images…; a wrong name lists them all); empty = all' },
  { name: 'limit', label: 'Limit (credits)', hint: 'spend limit; empty = none' },
  { name: 'limitReset', label: 'Limit reset', choices: [NO_RESET, ...SPEND_LIMIT_RESETS], hint: '←/→ to choose' },
];

const isoOf = (seconds: number | null) => (seconds === null ? '' : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));

/** A key's settings as the form's text. */
export function keyFormValues(key: KeyView): Record<string, string> {
  return {
    name: key.name,
    rpm: key.rpm === null ? '' : String(key.rpm),
    expires: isoOf(key.expires_at),
    models: key.models?.join(', ') ?? '',
    endpoints: key.endpoints?.join(', ') ?? '',
    limit: key.limit === null ? '' : String(key.limit),
    limitReset: key.limit_reset ?? NO_RESET,
  };
}

/** The `keys.set` input for what changed in the form; `null` when nothing did. */
export function keyFormInput(key: KeyView, values: Record<string, string>): Result<SetKeyInput | null> {
  const before = keyFormValues(key);
  const changed = (name: string) => (values[name] ?? '').trim() !== before[name].trim();
  const input: Record<string, unknown> = { id: key.id };
  if (changed('name')) input.name = values.name;
  if (changed('rpm')) input.rpm = numberOrNull(values.rpm);
  if (changed('expires')) input.expires = values.expires.trim() === '' ? null : values.expires.trim();
  if (changed('models')) input.models = listOrNull(values.models);
  if (changed('endpoints')) input.endpoints = listOrNull(values.endpoints);
  if (changed('limit')) input.limit = numberOrNull(values.limit);
  if (changed('limitReset')) input.limitReset = values.limitReset === NO_RESET ? null : values.limitReset;
  if (Object.keys(input).length === 1) return { ok: true, value: null };
  return validateForm(setKeyInput, input, KEY_FORM);
}

export const NEW_ACCOUNT_FORM: readonly FormField[] = [
  { name: 'email', label: 'Email' },
  { name: 'tier', label: 'Tier', choices: TIERS, hint: '←/→ to choose' },
  { name: 'credits', label: 'Credits', hint: 'starting balance; 1 credit = 0.001 USD' },
  { name: 'password', label: 'Password', secret: true, hint: 'for dashboard login, at least 8 characters; empty = none' },
  { name: 'quota', label: 'Token quota', hint: 'tokens per month; empty = unlimited' },
  { name: 'spendCap', label: 'Spend cap', hint: 'credits per month; empty = none' },
];

export function newAccountFormValues(): Record<string, string> {
  return { email: '', tier: 'free', credits: '0', password: '', quota: '', spendCap: '' };
}

/** The `accounts.create` input of the form. */
export function newAccountInput(values: Record<string, string>): Result<CreateAccountInput> {
  const credits = numberOrNull(values.credits);
  return validateForm(
    createAccountInput,
    {
      email: values.email.trim(),
      tier: values.tier,
      credits: credits ?? undefined,
      password: values.password === '' ? undefined : values.password,
      quota: numberOrNull(values.quota),
      spendCap: numberOrNull(values.spendCap),
    },
    NEW_ACCOUNT_FORM,
  );
}

export const ACCOUNT_FORM: readonly FormField[] = [
  { name: 'tier', label: 'Tier', choices: TIERS, hint: '←/→ to choose' },
  { name: 'quota', label: 'Token quota', hint: 'tokens per month; empty = unlimited' },
  { name: 'rpm', label: 'RPM', hint: 'custom requests per minute; empty = the tier default' },
  { name: 'spendCap', label: 'Spend cap', hint: 'credits per month, all keys; empty = none' },
  { name: 'password', label: 'New password', secret: true, hint: 'empty = unchanged; a new one ends its dashboard sessions' },
];

export function accountFormValues(account: AccountView): Record<string, string> {
  return {
    tier: account.tier,
    quota: account.monthly_token_quota === null ? '' : String(account.monthly_token_quota),
    rpm: account.rpm === null ? '' : String(account.rpm),
    spendCap: account.spend_cap === null ? '' : String(account.spend_cap),
    password: '',
  };
}

/** The `accounts.set` input for what changed; `null` when nothing did. */
export function accountFormInput(account: AccountView, values: Record<string, string>): Result<SetAccountInput | null> {
  const before = accountFormValues(account);
  const changed = (name: string) => (values[name] ?? '').trim() !== before[name].trim();
  const input: Record<string, unknown> = { email: account.email };
  if (changed('tier')) input.tier = values.tier;
  if (changed('quota')) input.quota = numberOrNull(values.quota);
  if (changed('rpm')) input.rpm = numberOrNull(values.rpm);
  if (changed('spendCap')) input.spendCap = numberOrNull(values.spendCap);
  if (values.password !== '') input.password = values.password;
  if (Object.keys(input).length === 1) return { ok: true, value: null };
  return validateForm(setAccountInput, input, ACCOUNT_FORM);
}
