// What users type into search that must not break it, and the check that bad input is refused as invalid_input.
import { expect } from 'vitest';
import { BackendError } from '../../src/model/errors.js';
import { SEARCH_TERMS_MAX_CHARS, SEARCH_TERMS_MAX_WORDS } from '../../src/model/limits.js';

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
  // As long and as many words as terms may be (longer ones are refused: OVERSIZE).
  'x'.repeat(SEARCH_TERMS_MAX_CHARS),
  '𝐀'.repeat(SEARCH_TERMS_MAX_CHARS / 2),
  'word '.repeat(SEARCH_TERMS_MAX_WORDS),
  '"a" "b" "c" "d" ""  " "',
];

/** Terms over the limits, each refused (invalid_input) with the limit named: the message of each, in order. */
export const OVERSIZE: [string, string][] = [
  ['x'.repeat(10_000), 'terms: must be at most 1000 characters (got 10000)'],
  ['𝐀'.repeat(3_000), 'terms: must be at most 1000 characters (got 6000)'],
  ['word '.repeat(2_000), 'terms: must be at most 1000 characters (got 10000)'],
  ['word '.repeat(33), 'terms: must be at most 32 words (got 33)'],
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
