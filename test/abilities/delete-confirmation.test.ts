// Confirming svc/delete-pages: the form a client is shown, how its answer is read (only accept with confirm: true
// deletes), and the ask/retry pair with its signed state (refused for another user, project or URL set, or changed).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CONFIRM_DELETE_INPUT,
  deleteConfirmationForm,
  deleteConfirmer,
  interpretDeleteConfirmation,
} from '../../src/abilities/delete-confirmation.js';
import type { User } from '../../src/model/users.js';

const urls = ['https://example.test/old', 'https://example.test/gone'];
const admin: User = { login: 'admin', role: 'administrator' };
const editor: User = { login: 'editor', role: 'administrator' };

describe('the delete confirmation form', () => {
  it('lists every URL once and asks for one boolean confirm, false unless ticked', () => {
    const form = deleteConfirmationForm([...urls, urls[0]!]);
    expect(form.message).toBe(
      'Delete these 2 pages from the search index? The site itself is not changed; a later crawl indexes a page again if it still exists and is linked.\n' +
        '- https://example.test/old\n- https://example.test/gone',
    );
    expect(form.requestedSchema).toEqual({
      type: 'object',
      properties: {
        confirm: {
          type: 'boolean',
          title: 'Delete',
          description: 'Yes, delete these 2 pages from the search index',
          default: false,
        },
      },
      required: ['confirm'],
    });
    expect(deleteConfirmationForm([urls[0]!]).message).toMatch(/^Delete this page from the search index\?/);
  });
});

describe('reading the answer', () => {
  it.each([
    [{ action: 'accept', content: { confirm: true } }, { delete: true }],
    [
      { action: 'accept', content: { confirm: false } },
      { delete: false, outcome: 'not_confirmed' },
    ],
    [
      { action: 'accept', content: {} },
      { delete: false, outcome: 'not_confirmed' },
    ],
    [{ action: 'accept' }, { delete: false, outcome: 'not_confirmed' }],
    [
      { action: 'accept', content: { confirm: 'true' } },
      { delete: false, outcome: 'not_confirmed' },
    ],
    [{ action: 'decline' }, { delete: false, outcome: 'declined' }],
    [
      { action: 'decline', content: { confirm: true } },
      { delete: false, outcome: 'declined' },
    ],
    [{ action: 'cancel' }, { delete: false, outcome: 'cancelled' }],
    [undefined, { delete: false, outcome: 'no_answer' }],
    [
      { action: 'yes', content: { confirm: true } },
      { delete: false, outcome: 'no_answer' },
    ],
    [{ roots: [] }, { delete: false, outcome: 'no_answer' }],
  ])('%j → %j', (answer, expected) => {
    expect(interpretDeleteConfirmation(answer)).toMatchObject(expected);
  });

  it('says plainly that nothing was deleted, and why', () => {
    expect(interpretDeleteConfirmation({ action: 'decline' })).toMatchObject({
      message: 'Nothing was deleted: the user declined the confirmation.',
    });
    expect(interpretDeleteConfirmation({ action: 'cancel' })).toMatchObject({
      message: 'Nothing was deleted: the user dismissed the confirmation without answering.',
    });
    expect(interpretDeleteConfirmation({ action: 'accept', content: { confirm: false } })).toMatchObject({
      message: 'Nothing was deleted: the form was submitted without ticking confirm.',
    });
  });
});

describe('ask, then decide on the retry', () => {
  const key = randomBytes(32);
  const confirmer = deleteConfirmer(key, { tool: 'svc-delete-pages', project: 'p1' });
  const now = Date.now();
  const asked = confirmer.ask({ user: admin, urls, now });
  const yes = { action: 'accept', content: { confirm: true } };

  it('asks with one form-mode elicitation request and a signed state', () => {
    expect(Object.keys(asked.inputRequests)).toEqual([CONFIRM_DELETE_INPUT]);
    expect(asked.inputRequests.confirm).toEqual({ method: 'elicitation/create', params: deleteConfirmationForm(urls) });
    expect(asked.requestState).toMatch(/^rs1\.[\w-]+\.[\w-]+$/);
  });

  it('deletes on an accepted confirm within 10 minutes, URLs in any order', () => {
    expect(
      confirmer.decide({
        user: admin,
        urls: [...urls].reverse(),
        now: now + 60_000,
        requestState: asked.requestState,
        answer: yes,
      }),
    ).toEqual({ delete: true });
  });

  it('deletes nothing on a no, even with a good state', () => {
    expect(
      confirmer.decide({ user: admin, urls, now, requestState: asked.requestState, answer: { action: 'decline' } }),
    ).toMatchObject({ delete: false, outcome: 'declined' });
  });

  it('deletes nothing, even on a yes, when the state fails: tampered, expired, another user, project or URL list, or none', () => {
    const decide = (over: Partial<Parameters<typeof confirmer.decide>[0]>, c = confirmer) =>
      c.decide({ user: admin, urls, now, requestState: asked.requestState, answer: yes, ...over });
    expect(decide({ requestState: asked.requestState.slice(0, -2) + 'AA' })).toMatchObject({
      delete: false,
      outcome: 'invalid_state',
      reason: 'tampered',
    });
    expect(decide({ now: now + 10 * 60_000 })).toMatchObject({
      delete: false,
      outcome: 'invalid_state',
      reason: 'expired',
    });
    expect(decide({ user: editor })).toMatchObject({ delete: false, outcome: 'invalid_state', reason: 'other_user' });
    expect(decide({}, deleteConfirmer(key, { tool: 'svc-delete-pages', project: 'p2' }))).toMatchObject({
      reason: 'other_user',
    });
    expect(decide({}, deleteConfirmer(key, { tool: 'other-tool', project: 'p1' }))).toMatchObject({
      reason: 'other_tool',
    });
    const changed = decide({ urls: [urls[0]!] });
    expect(changed).toMatchObject({ delete: false, outcome: 'invalid_state', reason: 'changed_urls' });
    expect(changed.delete === false && changed.message).toMatch(
      /^Nothing was deleted: requestState was issued for another list of URLs/,
    );
    expect(decide({ requestState: undefined })).toMatchObject({
      delete: false,
      outcome: 'invalid_state',
      reason: 'malformed',
    });
  });
});
