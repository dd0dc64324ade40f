import { hasMark } from '../util/index.ts';

const MARK = Symbol.for('gateway.email-taken-error');

/**
 * `accounts.create` refused: another account has this email (compared ignoring case). Each
 * backend checks it atomically with the insert (the file store in one synchronous step, a
 * database by its unique index), so two creates racing past the caller's own check still end
 * with one account.
 */
export class EmailTakenError extends Error {
  override name = 'EmailTakenError';
  readonly [MARK] = true;
  constructor(readonly email: string) {
    super(`An account with email ${email} already exists.`);
  }
}

/** True for an EmailTakenError, recognised by its mark (other folders do not use instanceof). */
export function isEmailTakenError(value: unknown): value is EmailTakenError {
  return hasMark(value, MARK);
}
