/**
 * `accounts.create` refused: another account has this email (compared ignoring case). Each
 * backend checks it atomically with the insert (the file store in one synchronous step, a
 * database by its unique index), so two creates racing past the caller's own check still end
 * with one account.
 */
export class EmailTakenError extends Error {
  override name = 'EmailTakenError';
  constructor(readonly email: string) {
    super(`An account with email ${email} already exists.`);
  }
}
