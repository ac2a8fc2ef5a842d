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
    if (issue.code === 'unrecognized_keys') return `${path}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    return `${path}: ${issue.message}`;
  });
}
