// Turning request input into typed values with the /v1 schemas: every refusal is a 400 naming the field and the rule.
import type { z } from 'zod';
import { formatPath } from '../lib/zod-issues.js';
import { HttpError } from './io.js';

export type InputPlace = 'body' | 'query';

export function issuesMessage(error: z.ZodError, place: InputPlace): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const what = place === 'query' ? 'query parameter' : 'field';
        return `unknown ${what}${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      }
      if (issue.path.length === 0) return place === 'body' ? 'body must be a JSON object' : `query: ${issue.message}`;
      return `${formatPath(issue.path)}: ${issue.message}`;
    })
    .join('; ');
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, place: InputPlace): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new HttpError(400, 'invalid_input', issuesMessage(parsed.error, place));
  return parsed.data;
}

/**
 * Query parameters as an object for a schema: whole-number-looking values of `numeric` keys become numbers
 * (so "1.5" and "abc" fail the integer rule with its own message); a key given twice is refused.
 */
export function queryInput(url: URL, numeric: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of url.searchParams) {
    if (Object.hasOwn(out, key)) throw new HttpError(400, 'invalid_input', `${key}: must be given at most once`);
    out[key] = numeric.includes(key) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}
