// The contract of the ability layer: what an ability is, how it fails, how it runs.
import type { z } from 'zod';
import type { User } from '../model/users.js';

export type AbilityErrorCode =
  | 'ability_invalid_permissions' // no current user, or one lacking the capability
  | 'ability_invalid_input' // input violates the input schema (message names the field and rule)
  | 'ability_invalid_output' // the function's result violates the output schema
  | 'ability_not_found' // no ability of that name
  | 'svc_post_not_found' // missing post, or a non-public post the user may not read: indistinguishable
  | 'svc_crawl_not_found' // no crawl of that id (or none at all yet)
  | 'svc_page_not_found' // no stored page at that URL, or one hidden from search for a caller who may only search
  | 'svc_task_not_found' // no task of that id that belongs to the caller (another user's looks the same), or it expired
  | 'svc_task_ended' // a cancel of a task whose crawl has already ended
  | 'svc_api_error'; // the backend (or upstream /v1 service) failed; data.upstream_status when there was one

export class AbilityError extends Error {
  constructor(
    readonly code: AbilityErrorCode,
    message: string,
    /** HTTP status the host's routes answer with (400, 401, 403, 404, 500, 502). */
    readonly status: number,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AbilityError';
  }
}

export interface AbilityAnnotations {
  readonly: boolean;
  destructive: boolean;
  idempotent: boolean;
}

export type JsonSchema = Record<string, unknown>;

export interface Ability {
  /** namespace/name, e.g. svc/search. */
  name: string;
  label: string;
  description: string;
  category: string;
  capability: 'read' | 'manage_options';
  annotations: AbilityAnnotations;
  inputSchema: z.ZodType;
  outputSchema: z.ZodType;
  /** z.toJSONSchema of the schemas above: the one source of every published schema. */
  inputJsonSchema: JsonSchema;
  outputJsonSchema: JsonSchema;
}

/** How far a long-running ability has got (svc/get-crawl while it waits for a crawl's end). */
export interface AbilityProgress {
  /** Units done: pages stored, or of a known total, the URLs done (never more than the total). */
  done: number;
  /** The units there will be, when known before the end (a manual crawl's URLs); null when not known. */
  total: number | null;
  /** Units still waiting (pages and link checks queued). */
  queued: number;
  /** One line a person can read. */
  message: string;
}

export interface ExecuteContext {
  /** The current user; null when none is set (CLI without a user, HTTP without a token). */
  user: User | null;
  /** How this caller sets a current user (e.g. "set SVC_USER=<login>"): the transport knows, the no-user error says it. */
  signInHint?: string;
  /** Hears the progress of an ability that waits (svc/get-crawl with wait_seconds). */
  onProgress?: (p: AbilityProgress) => void;
  /** Stops a waiting ability early (the caller went away or cancelled); it answers what it has. */
  signal?: AbortSignal;
}

export interface AbilityRegistry {
  list(): RegisteredAbility[];
  get(name: string): RegisteredAbility | undefined;
  /** Runs the ability: default input, input validation, permission check, the function, output validation. Throws AbilityError. */
  execute(name: string, input: unknown, ctx: ExecuteContext): Promise<unknown>;
}

/** One problem with an input: the field (dotted path, `input` for the whole) and the rule it breaks. */
export interface InputIssue {
  path: string;
  message: string;
}

/** An ability as the registry holds it: the published descriptor plus a way to run it in-process. */
export interface RegisteredAbility extends Ability {
  /** Same as registry.execute(this.name, input, ctx). */
  execute(input: unknown, ctx: ExecuteContext): Promise<unknown>;
}
