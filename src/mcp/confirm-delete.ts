// Asking a person before svc-delete-pages deletes, for clients that can show a form. The first call answers
// input_required with the form and a signed requestState; the retry carries the answer and the state, and deletes
// only when the state verifies for this user and URL list and the answer is an accepted confirm: true, and only once
// per state. A 2025
// client on stdio that declared elicitation gets the same round as an elicitation/create request (the SDK turns
// the input_required answer into one and calls this step again with the reply). Clients without elicitation, and
// 2025 HTTP requests (stateless: no declared capabilities to read), get today's behaviour.
import type { InputRequiredResult, Server, ServerContext } from '@modelcontextprotocol/server';
import { CONFIRM_DELETE_INPUT, SPENT_STATE_MESSAGE, type DeleteConfirmer } from '../abilities/delete-confirmation.js';
import type { AbilityHost } from '../abilities/runtime.js';
import { DELETE_URLS_MAX } from '../model/limits.js';
import { errorResult } from '../tools/define.js';
import type { ToolCallStep } from '../tools/index.js';
import { requestCapabilities } from './tasks.js';

const TOOL_ABILITY = 'svc/delete-pages';

/** Whether capabilities declare form elicitation (an empty elicitation object means form, as first specified). */
export function declaresFormElicitation(capabilities: Record<string, unknown> | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === null || typeof elicitation !== 'object') return false;
  const modes = elicitation as Record<string, unknown>;
  return 'form' in modes || !('url' in modes);
}

/** The URL list of a call worth asking about; null when the tool will refuse the input anyway (it says why). */
function urlsToConfirm(args: Record<string, unknown> | undefined): string[] | null {
  const urls = args?.urls;
  if (!Array.isArray(urls) || urls.length === 0 || urls.length > DELETE_URLS_MAX) return null;
  return urls.every((u) => typeof u === 'string') ? (urls as string[]) : null;
}

export interface ConfirmDeleteOptions {
  confirmer: DeleteConfirmer;
  /** Whether a user may delete (the tool's capability). */
  can: AbilityHost['can'];
  /** The server of this connection or request: a 2025 client declared its capabilities to it at initialize. */
  server: Server;
  now?: () => number;
}

/** The step before svc-delete-pages runs: ask, or check the answer, or (no elicitation) let it run as always. */
export function confirmDeleteStep(opts: ConfirmDeleteOptions): ToolCallStep {
  const now = opts.now ?? Date.now;
  return async ({ spec, args, user }, ctx: ServerContext) => {
    if (spec.ability !== TOOL_ABILITY) return undefined;
    const capabilities = requestCapabilities(ctx) ?? (opts.server.getClientCapabilities() as Record<string, unknown>);
    if (!declaresFormElicitation(capabilities)) return undefined;
    const urls = urlsToConfirm(args);
    // Nothing to confirm for a caller the tool refuses, or a list it rejects: its own error is the answer.
    if (!user || !opts.can(user, 'manage_options') || !urls) return undefined;
    const requestState = ctx.mcpReq.requestState<unknown>();
    if (requestState === undefined) {
      const asked = opts.confirmer.ask({ user, urls, now: now() });
      return { resultType: 'input_required', ...asked } satisfies InputRequiredResult;
    }
    const answer = ctx.mcpReq.inputResponses?.[CONFIRM_DELETE_INPUT];
    const at = now();
    const decision = opts.confirmer.decide({ user, urls, now: at, requestState, answer });
    if (decision.delete) {
      // Verified, so a string: spent now, so the same state and answer never delete twice.
      if (await opts.confirmer.spend(requestState as string, at)) return undefined;
      return errorResult('svc_invalid_request_state', SPENT_STATE_MESSAGE);
    }
    return errorResult(
      decision.outcome === 'invalid_state' ? 'svc_invalid_request_state' : 'svc_delete_not_confirmed',
      decision.message,
    );
  };
}
