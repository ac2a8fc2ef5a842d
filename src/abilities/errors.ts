// The errors an ability run ends with: built here so every caller gets the same code, message and status.
import type { z } from 'zod';
import type { BackendError } from '../model/errors.js';
import { formatPath } from '../lib/zod-issues.js';
import { AbilityError, type InputIssue } from './types.js';

/** Whether the value at `path` is missing from `value` (a required field that was not sent). */
function isMissing(value: unknown, path: readonly PropertyKey[]): boolean {
  let v: unknown = value;
  for (const seg of path) {
    if (v === null || typeof v !== 'object' || !(seg in v)) return true;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v === undefined;
}

/** zod issues → `{path, message}` naming the field (`input` for the whole input) and the rule it breaks. */
export function inputIssues(error: z.ZodError, value?: unknown): InputIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.length ? formatPath(issue.path) : 'input';
    if (issue.code === 'unrecognized_keys')
      return { path, message: `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` };
    if (issue.code === 'invalid_type' && issue.path.length && isMissing(value, issue.path))
      return { path, message: `is required (${issue.message})` };
    return { path, message: issue.message };
  });
}

export function invalidInput(ability: string, issues: InputIssue[]): AbilityError {
  const text = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return new AbilityError('ability_invalid_input', `invalid input for ${ability}: ${text}`, 400, { issues });
}

export function invalidOutput(ability: string, issues: InputIssue[]): AbilityError {
  const text = issues.map((i) => `${i.path.replace(/^input/, 'output')}: ${i.message}`).join('; ');
  return new AbilityError(
    'ability_invalid_output',
    `${ability} returned output that does not match its output schema: ${text}`,
    500,
  );
}

/** No current user → 401 (saying how to set one, when the caller's transport told); a user without the capability → 403. Same code either way. */
export function invalidPermissions(
  ability: string,
  capability: string,
  user: { login: string; role: string } | null,
  signInHint?: string,
): AbilityError {
  if (!user) {
    const next = signInHint ? `: ${signInHint}` : '';
    return new AbilityError(
      'ability_invalid_permissions',
      `${ability} needs a current user with the ${capability} capability, and no user is set${next}`,
      401,
      { capability },
    );
  }
  return new AbilityError(
    'ability_invalid_permissions',
    `user "${user.login}" (${user.role}) lacks the ${capability} capability that ${ability} needs`,
    403,
    { capability },
  );
}

/** The one answer for a missing post and for a post the user may not read, so ids cannot be probed. */
export function postNotFound(postId: number): AbilityError {
  return new AbilityError('svc_post_not_found', `no post ${postId} that you can read`, 404);
}

/** No stored page at a URL (or one the caller may not read): the backend's message names where to find pages. */
export function pageNotFound(err: BackendError): AbilityError {
  return new AbilityError('svc_page_not_found', err.message, 404);
}

/** An unknown crawl id, or no crawl at all yet: says what to call instead. */
export function crawlNotFound(id: number | null, latest: number | null): AbilityError {
  const message =
    id === null
      ? 'no crawl has run yet in this project: start one with svc/full-crawl'
      : `no crawl ${id} in this project${latest === null ? ': no crawl has run yet; start one with svc/full-crawl' : ` (the latest is ${latest}; leave out id for it)`}`;
  return new AbilityError('svc_crawl_not_found', message, 404);
}

/**
 * A BackendError → the ability error. Bad input the backend caught stays an input error (400); a running crawl is a
 * conflict (409); anything else is an upstream failure (502). data.upstream_status carries the backend's status.
 */
export function fromBackendError(ability: string, err: BackendError): AbilityError {
  if (err.code === 'invalid_input')
    return new AbilityError('ability_invalid_input', `invalid input for ${ability}: ${err.message}`, 400, {
      issues: [{ path: 'input', message: err.message }],
    });
  const upstream_status = err.upstreamStatus ?? err.status;
  const status = err.code === 'conflict' ? 409 : 502;
  return new AbilityError('svc_api_error', `${ability} failed: ${err.message}`, status, { upstream_status });
}

/** The one answer for an unknown, expired or malformed task id and for another user's task, so ids cannot be probed. */
export function taskNotFound(): AbilityError {
  return new AbilityError(
    'svc_task_not_found',
    'no such task of yours: it never existed, belongs to another user, or expired after its crawl ended',
    404,
  );
}

/** A cancel that comes after the end: says how it ended, since nothing can change it now. */
export function taskEnded(taskId: string, status: string): AbilityError {
  const message = `task ${taskId} has already ended (${status}) and cannot be cancelled`;
  return new AbilityError('svc_task_ended', message, 409, { status });
}
