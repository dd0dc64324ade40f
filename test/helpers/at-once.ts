import { expect } from 'vitest';

/** The answer of a method that returns a value or a promise, checked to have come at once (no promise). */
export function atOnce<T>(answer: T | Promise<T>, what?: string): T {
  expect(answer, what).not.toBeInstanceOf(Promise);
  return answer as T;
}
