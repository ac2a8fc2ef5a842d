// What users type into search that must not break it, and the check that bad input is refused as invalid_input.
import { expect } from 'vitest';
import { BackendError } from '../../src/model/errors.js';

/** Hostile or odd things a user may type; every one must become a valid FTS5 expression (or none). */
export const HOSTILE = [
  '"',
  '""',
  '"unclosed phrase',
  'a"b"c',
  'NEAR(',
  'NEAR(a b, 2)',
  'a NEAR b',
  'AND',
  'OR',
  'NOT',
  'a AND',
  'OR b',
  'NOT NOT NOT',
  'a OR b NOT c',
  '*',
  'a*',
  '*a',
  '-',
  '-a',
  'a -b',
  ':',
  'title:secret',
  '{title}: x',
  '^',
  '^start',
  '(',
  ')',
  '(a OR b) AND (c',
  '+',
  "'; DROP TABLE pages; --",
  '\u0000',
  'a\u0000b',
  '\u0301\u0301',
  '\ud800',
  'emoji 😀 ok',
  '日本語のテキスト',
  'x'.repeat(10_000),
  '𝐀'.repeat(3_000),
  'word '.repeat(2_000),
  '"a" "b" "c" "d" ""  " "',
];

/** Runs fn, expects it to throw an invalid_input BackendError, and returns its message. */
export function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe('invalid_input');
    return (err as Error).message;
  }
  throw new Error('expected invalid_input');
}
