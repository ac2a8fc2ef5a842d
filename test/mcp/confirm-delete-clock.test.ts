// The confirmation step's clock: a retry within 10 minutes of the ask deletes, one after it deletes nothing and says
// the state expired. The step runs on its own with a moved clock; the request context is the SDK's shape, built here.
import { randomBytes } from 'node:crypto';
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { deleteConfirmer } from '../../src/abilities/delete-confirmation.js';
import { userCan } from '../../src/cms/roles.js';
import { confirmDeleteStep } from '../../src/mcp/confirm-delete.js';
import type { User } from '../../src/model/users.js';
import { svcDeletePages } from '../../src/tools/svc-delete-pages.js';

const admin: User = { login: 'admin', role: 'administrator' };
const urls = ['https://example.test/old'];
const yes = { action: 'accept', content: { confirm: true } };

/** A 2026-07-28 request context declaring form elicitation, carrying `requestState` and `answer` when given. */
function request(requestState?: string, answer?: unknown): ServerContext {
  return {
    mcpReq: {
      envelope: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
      requestState: () => requestState,
      ...(answer !== undefined && { inputResponses: { confirm: answer } }),
    },
  } as unknown as ServerContext;
}

describe('the confirmation clock', () => {
  it('accepts a retry until 10 minutes after the ask, and refuses it after', async () => {
    let clock = Date.parse('2026-11-25T10:00:00Z');
    const step = confirmDeleteStep({
      confirmer: deleteConfirmer(randomBytes(32), { tool: 'svc/delete-pages' }),
      can: userCan,
      server: { getClientCapabilities: () => undefined } as unknown as Server,
      now: () => clock,
    });
    const call = { spec: svcDeletePages, args: { urls }, user: admin };
    const asked = (await step(call, request())) as { resultType: string; requestState: string };
    expect(asked.resultType).toBe('input_required');

    clock += 10 * 60_000 - 1;
    expect(await step(call, request(asked.requestState, yes))).toBeUndefined(); // undefined: the tool runs

    clock += 2;
    const late = await step(call, request(asked.requestState, yes));
    expect(late).toMatchObject({ isError: true });
    expect(JSON.stringify(late)).toMatch(/svc_invalid_request_state: Nothing was deleted: requestState has expired/);
  });

  it('leaves a caller who may not delete, and a list the tool refuses, to the tool', async () => {
    const step = confirmDeleteStep({
      confirmer: deleteConfirmer(randomBytes(32), { tool: 'svc/delete-pages' }),
      can: userCan,
      server: { getClientCapabilities: () => undefined } as unknown as Server,
    });
    const subscriber: User = { login: 'sub', role: 'subscriber' };
    expect(await step({ spec: svcDeletePages, args: { urls }, user: subscriber }, request())).toBeUndefined();
    expect(await step({ spec: svcDeletePages, args: { urls: [] }, user: admin }, request())).toBeUndefined();
    expect(await step({ spec: svcDeletePages, args: { urls: 'x' }, user: admin }, request())).toBeUndefined();
  });
});
