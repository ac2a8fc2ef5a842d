// Asking before svc/delete-pages deletes, for a client that can show a form: what is asked (a message listing the
// URLs and one boolean `confirm`), how the answer is read (only an accepted `confirm: true` deletes), and the signed
// state that ties the retry to the call that asked (same user, same tool, same URL set, within 10 minutes, once). Shapes
// are MCP's elicitation ones, plain data, so the protocol layer returns them as they are: inside an `input_required`
// result (2026-07-28) or as an `elicitation/create` request (2025 over stdio), and reads either answer the same way.
import { z } from 'zod';
import type { User } from '../model/users.js';
import {
  requestStateExpiry,
  signRequestState,
  verifyRequestState,
  type RequestStateFailure,
} from '../auth/request-state.js';

/** The key of the one form request in `inputRequests`, and so of its answer in `inputResponses`. */
export const CONFIRM_DELETE_INPUT = 'confirm';

/** Form-mode `elicitation/create` params (mode left out: form is the default in every revision that has it). */
export interface ConfirmForm {
  message: string;
  requestedSchema: {
    type: 'object';
    properties: { confirm: { type: 'boolean'; title: string; description: string; default: false } };
    required: ['confirm'];
  };
}

/** The form that asks whether to delete `urls` (each on a line of its own, in the order given, repeats once). */
export function deleteConfirmationForm(urls: readonly string[]): ConfirmForm {
  const unique = [...new Set(urls)];
  const what = unique.length === 1 ? 'this page' : `these ${unique.length} pages`;
  return {
    message: `Delete ${what} from the search index? The site itself is not changed; a later crawl indexes a page again if it still exists and is linked.\n${unique.map((u) => `- ${u}`).join('\n')}`,
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: {
          type: 'boolean',
          title: 'Delete',
          description: `Yes, delete ${what} from the search index`,
          default: false,
        },
      },
      required: ['confirm'],
    },
  };
}

/** Why an answer deletes nothing. */
export type UnconfirmedOutcome = 'declined' | 'cancelled' | 'not_confirmed' | 'no_answer';

export type ConfirmationAnswer = { delete: true } | { delete: false; outcome: UnconfirmedOutcome; message: string };

// The client's answer is untrusted input: anything but these shapes reads as no answer.
const ElicitAnswerSchema = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});

const NOTHING = 'Nothing was deleted';

/**
 * What the client's elicitation answer (an ElicitResult, or undefined when the retry carried none) means: delete only
 * on `accept` with `confirm: true`; decline, cancel, `confirm: false` (or missing, or not a boolean) delete nothing.
 */
export function interpretDeleteConfirmation(answer: unknown): ConfirmationAnswer {
  const parsed = ElicitAnswerSchema.safeParse(answer);
  if (!parsed.success)
    return {
      delete: false,
      outcome: 'no_answer',
      message: `${NOTHING}: the request carried no answer to the confirmation form (inputResponses.${CONFIRM_DELETE_INPUT} with action accept and confirm: true).`,
    };
  const { action, content } = parsed.data;
  if (action === 'decline')
    return { delete: false, outcome: 'declined', message: `${NOTHING}: the user declined the confirmation.` };
  if (action === 'cancel')
    return {
      delete: false,
      outcome: 'cancelled',
      message: `${NOTHING}: the user dismissed the confirmation without answering.`,
    };
  if (content?.confirm === true) return { delete: true };
  return {
    delete: false,
    outcome: 'not_confirmed',
    message: `${NOTHING}: the form was submitted without ticking confirm.`,
  };
}

/** What the protocol layer returns to ask: the embedded request of an `input_required` result, and its state. */
export interface ConfirmationRequest {
  inputRequests: { [CONFIRM_DELETE_INPUT]: { method: 'elicitation/create'; params: ConfirmForm } };
  requestState: string;
}

export type ConfirmationDecision =
  | { delete: true }
  | { delete: false; outcome: UnconfirmedOutcome; message: string }
  | { delete: false; outcome: 'invalid_state'; reason: RequestStateFailure; message: string };

export interface DeleteConfirmer {
  /** The form and signed state for a first call (no requestState yet). */
  ask(call: { user: User; urls: readonly string[]; now: number }): ConfirmationRequest;
  /** Whether the retry may delete: its state must verify for this user, tool and URL set, and its answer be yes. */
  decide(retry: {
    user: User;
    urls: readonly string[];
    now: number;
    requestState: unknown;
    answer: unknown;
  }): ConfirmationDecision;
  /**
   * Spends a state that `decide` let delete: true the first time, false after (one confirmation, one deletion).
   * Without a store to keep spent states, always true.
   */
  spend(requestState: string, now: number): Promise<boolean>;
}

/** What a retry with a spent state is told. */
export const SPENT_STATE_MESSAGE = `${NOTHING}: requestState was already used for a deletion; call the tool again to be asked again.`;

/**
 * Confirmations for one tool, signed with `key`. `project` (the project token, when one data directory or database
 * serves several) is bound with the user, so a state made for one project's user is no good in another's.
 */
export function deleteConfirmer(
  key: Buffer,
  opts: { tool: string; project?: string; spend?: (requestState: string, now: number) => Promise<boolean> },
): DeleteConfirmer {
  const who = (user: User) => JSON.stringify([opts.project ?? '', user.login]);
  return {
    ask({ user, urls, now }) {
      return {
        inputRequests: {
          [CONFIRM_DELETE_INPUT]: { method: 'elicitation/create', params: deleteConfirmationForm(urls) },
        },
        requestState: signRequestState(key, {
          user: who(user),
          tool: opts.tool,
          urls,
          expiresAt: requestStateExpiry(now),
        }),
      };
    },
    decide({ user, urls, now, requestState, answer }) {
      const check = verifyRequestState(key, requestState, { user: who(user), tool: opts.tool, urls, now });
      if (!check.ok)
        return {
          delete: false,
          outcome: 'invalid_state',
          reason: check.reason,
          message: `${NOTHING}: ${check.message}.`,
        };
      return interpretDeleteConfirmation(answer);
    },
    spend: (requestState, now) => (opts.spend ? opts.spend(requestState, now) : Promise.resolve(true)),
  };
}
