// Turning request input into typed values with the /v1 schemas: every refusal is a 400 naming the field and the rule.
import type { z } from 'zod';
import { issuesMessage, type InputPlace } from '../lib/zod-issues.js';
import { HttpError } from './io.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, place: InputPlace): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new HttpError(400, 'invalid_input', issuesMessage(parsed.error, place));
  return parsed.data;
}

/**
 * Query parameters as an object for a schema: whole-number-looking values of `numeric` keys become numbers
 * (so "1.5" and "abc" fail the integer rule with its own message). A key given twice never gets here: the
 * server refuses it for every route.
 */
export function queryInput(url: URL, numeric: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of url.searchParams) {
    out[key] = numeric.includes(key) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}

/**
 * A whole number from a path segment or query value, within [min, max]; otherwise a 400 whose message names it
 * with `rule`. The one integer parser of the HTTP entries.
 */
export function wholeNumber(
  raw: string,
  name: string,
  min: number,
  max: number,
  code: string,
  rule = `must be a whole number from ${min} to ${max}`,
): number {
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new HttpError(400, code, `${name}: ${rule}`);
  return n;
}
