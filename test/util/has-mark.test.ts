// Classes other folders recognise are checked by their Symbol.for mark through an isX() of the
// owning folder, never by instanceof: a second copy of the module (a bundle, a plugin's kit)
// makes another class object with the same mark.
import { describe, expect, it } from 'vitest';
import { ExitError, hasMark, isExitError } from '../../src/util/index.ts';
import { CliError } from '../../src/cli/run-action.ts';
import { EmailTakenError, isEmailTakenError, isPostgresStoreError, PostgresStoreError } from '../../src/store/index.ts';
import { isUpstreamHttpError, UpstreamHttpError } from '../../src/upstream/index.ts';

/** An instance of "another copy" of a class: a plain object carrying only the mark. */
const copyOf = (name: string): object => ({ [Symbol.for(name)]: true });

describe('marks', () => {
  it('are read from any object, and only a mark set to true counts', () => {
    const mark = Symbol.for('gateway.test-mark');
    expect(hasMark({ [mark]: true }, mark)).toBe(true);
    expect(hasMark({ [mark]: 'yes' }, mark)).toBe(false);
    expect(hasMark({}, mark)).toBe(false);
    expect(hasMark(null, mark)).toBe(false);
    expect(hasMark('gateway.test-mark', mark)).toBe(false);
  });

  it('recognise each class, its subclasses and other copies, not an error of the same name', () => {
    const cases: Array<[(value: unknown) => boolean, unknown, string]> = [
      [isExitError, new ExitError('x', 2), 'gateway.exit-error'],
      [isExitError, new CliError('x'), 'gateway.exit-error'],
      [isPostgresStoreError, new PostgresStoreError('store: down'), 'gateway.postgres-store-error'],
      [isEmailTakenError, new EmailTakenError('a@b.c'), 'gateway.email-taken-error'],
      [isUpstreamHttpError, new UpstreamHttpError(500, 'x'), 'gateway.upstream-http-error'],
    ];
    for (const [is, instance, mark] of cases) {
      expect(is(instance)).toBe(true);
      expect(is(copyOf(mark))).toBe(true);
      const lookalike = new Error('x');
      lookalike.name = (instance as Error).constructor.name;
      expect(is(lookalike)).toBe(false);
    }
  });
});
