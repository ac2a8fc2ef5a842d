// Zod issues as the one-line messages every layer gives for bad input: the field's path, then the rule.
import type { z } from 'zod';

/** `targets[0].concurrency` from zod's path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(root)';
}

export function formatZodIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys')
      return `${path}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    return `${path}: ${issue.message}`;
  });
}

export type InputPlace = 'body' | 'query';

/** The one message of a refused request (REST body or query, a crawl request from any surface): field and rule. */
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
